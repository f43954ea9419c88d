import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { createFilePool } from '../../src/scan/pool.js';

const FOLDER = fileURLToPath(new URL('../../fixtures/library/events/sao-paulo/', import.meta.url));

describe('the thread pool', () => {
  it('never aborts a task inside a thread: a stopped scan closes the pool once the tasks in flight have answered', async () => {
    const files = readdirSync(FOLDER)
      .filter((name) => /\.(jpg|mov)$/i.test(name))
      .map((name) => join(FOLDER, name));
    expect(files.length).toBeGreaterThan(1);
    const pool = await createFilePool({ workers: 1 });
    const stopped = new AbortController();
    // Two tasks on one thread (it holds two at a time), then the scan stops and closes it.
    const first = pool.run(files, stopped.signal);
    const second = pool.run(files.slice(0, 1), stopped.signal);
    stopped.abort();
    await pool.close();
    const [a, b] = await Promise.all([first, second]);
    expect(a.map((r) => r.absPath)).toEqual(files);
    expect(b.map((r) => r.absPath)).toEqual(files.slice(0, 1));
    expect([...a, ...b].every((r) => r.error === null && r.media?.id.startsWith('sha256:'))).toBe(true);
  });
});
