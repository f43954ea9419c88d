import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCamroll, tempHome } from './helpers/camroll.js';
import { makeJpeg } from './helpers/exif-jpeg.js';

// A report of thousands of lines makes the report file fall behind again and again: every
// wait for it must leave no listener behind, or Node prints MaxListenersExceededWarning.
const FILES = 2400;
let home: ReturnType<typeof tempHome>;
let lib: string;

beforeAll(() => {
  home = tempHome('camroll-report-lines-');
  lib = join(home.dir, 'library');
  for (let i = 0; i < FILES; i += 1) {
    const folder = join(lib, `roll-${Math.floor(i / 600)}`);
    if (i % 600 === 0) mkdirSync(folder, { recursive: true });
    // No GPS: the service rejects every one (missing_coordinates), so each is a report line.
    const spec = {
      takenAt: new Date(Date.UTC(2020, 0, 1) + i * 60_000),
      latitude: null,
      longitude: null,
      tag: `r${i}`,
    };
    writeFileSync(join(folder, `IMG_${String(i).padStart(5, '0')}.jpg`), makeJpeg(spec));
  }
});
afterAll(() => rmSync(home.dir, { recursive: true, force: true }));

describe(`--report with ${FILES} lines`, () => {
  it.each([
    ['scan', ['scan'], 0],
    ['sync --dry-run', ['sync', '--dry-run'], 0],
    ['sync (embedded service)', ['sync', '--email', 'many-lines@example.com', '--no-events'], 0],
  ])('%s: every line is written and stderr holds no Node warning', async (name, command, code) => {
    const report = join(home.dir, `${name.replace(/\W+/g, '-')}.jsonl`);
    const result = await runCamroll([...command, lib, '--report', report, '--no-cache'], {
      env: home.env,
      timeoutMs: 180_000,
    });
    expect(result.code, result.stderr).toBe(code);
    const lines = readFileSync(report, 'utf8').trim().split('\n');
    expect(lines.length).toBeGreaterThanOrEqual(2000);
    expect(lines.length).toBe(FILES);
    expect(result.stderr).not.toMatch(/Warning/);
    expect(result.stderr).not.toMatch(/MaxListeners/);
  });
});
