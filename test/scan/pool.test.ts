import { copyFileSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { createFilePool, createLazyPool } from '../../src/scan/pool.js';
import { createItemReader } from '../../src/scan/worker.js';

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

describe('the lazy pool (started on the first miss)', () => {
  it('starts only when asked: one never used closes at once, and one used reads with its reader', async () => {
    let reads = 0;
    const reader = createItemReader();
    const counted = async (item: Parameters<typeof reader>[0]) => {
      reads += 1;
      return reader(item);
    };
    const unused = createLazyPool({ workers: 0, reader: counted });
    await unused.close();
    expect(reads).toBe(0);
    const used = createLazyPool({ workers: 0, reader: counted });
    used.start();
    const photo = readdirSync(FOLDER).find((name) => /\.jpg$/i.test(name))!;
    const [result] = await used.run([join(FOLDER, photo)]);
    expect(result?.media?.id).toMatch(/^sha256:/);
    expect(reads).toBe(1);
    await used.close();
  });

  it('keeps two tasks in flight per thread (one running, one waiting), and two for an in-thread pool', () => {
    expect(createLazyPool({ workers: 3 }).slots).toBe(6);
    expect(createLazyPool({ workers: 0 }).slots).toBe(2);
  });
});

describe('a thread that dies', () => {
  it('costs only the file it was reading: the others of its group are read again in a fresh thread', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'camroll-pool-'));
    const photos = readdirSync(FOLDER)
      .filter((name) => /\.jpg$/i.test(name))
      .map((name) => join(FOLDER, name));
    const killer = join(dir, 'IMG_kills-its-thread.jpg');
    copyFileSync(photos[0]!, killer);
    const group = [photos[0]!, killer, ...photos.slice(1)];
    const pool = await createFilePool({
      workers: 1,
      entry: {
        filename: new URL('./helpers/dying-worker.cts', import.meta.url).href,
        execArgv: ['--import', 'tsx'],
      },
    });
    try {
      const results = await pool.run(group);
      expect(results.map((r) => r.absPath)).toEqual(group);
      const [bad] = results.filter((r) => r.error !== null);
      expect(bad).toMatchObject({
        absPath: killer,
        cacheable: false,
        error: { code: 'internal_error', message: expect.stringContaining('the reading thread stopped on this file') },
      });
      const good = results.filter((r) => r.absPath !== killer);
      expect(good.every((r) => r.error === null && r.media?.id.startsWith('sha256:'))).toBe(true);
      // And the pool goes on with a fresh thread.
      expect((await pool.run(photos.slice(0, 1)))[0]!.error).toBeNull();
    } finally {
      await pool.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
