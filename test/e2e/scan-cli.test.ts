import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { MediaMetadata } from '../../src/contract/index.js';
import { writePhotoLibrary } from '../../bench/scan-library.js';
import { collect, runCamroll, spawnCamroll, tempHome } from './helpers/camroll.js';

const MEDIA_KEYS = [
  'id',
  'taken_at',
  'latitude',
  'longitude',
  'media_type',
  'filename',
  'duration_seconds',
  'device_make',
  'device_model',
  'device_lens_model',
];

const MediaLine = z
  .object({
    path: z.string().min(1),
    media: MediaMetadata.strict(),
    // The rules that gave the time and the place, and the file's origin (issue 28).
    source: z
      .object({
        taken_at: z.string().nullable(),
        coordinates: z.string().nullable(),
        origin: z.enum(['own', 'unknown']),
        origin_rule: z.string().min(1),
      })
      .strict(),
  })
  .strict();
const ErrorLine = z
  .object({ path: z.string().min(1), error: z.object({ code: z.string().min(1), message: z.string() }).strict() })
  .strict();

let home: ReturnType<typeof tempHome>;
let lib: string;
/** 1500 files: their --jsonl output (~600 KB) is far more than a pipe holds. */
let big: string;
const cacheFile = (): string => path.join(home.env.XDG_CACHE_HOME!, 'camroll', 'scan-cache.sqlite3');

beforeAll(() => {
  home = tempHome('camroll-scan-cli-');
  lib = path.join(home.dir, 'library');
  writePhotoLibrary(lib, { count: 30, minBytes: 1000, maxBytes: 40_000, perFolder: 10, seed: 3 });
  fs.writeFileSync(path.join(lib, 'broken.jpg'), 'plain text pretending to be a photo');
  fs.copyFileSync(path.join(lib, 'roll-0000', 'IMG_000003.JPG'), path.join(lib, 'copy.jpg'));
  fs.writeFileSync(path.join(lib, '._copy.jpg'), 'resource fork');
  big = path.join(home.dir, 'big');
  writePhotoLibrary(big, { count: 1500, minBytes: 2000, maxBytes: 6000, perFolder: 300, seed: 11 });
});
afterAll(() => {
  fs.rmSync(home.dir, { recursive: true, force: true });
});

describe('camroll scan (real binary)', () => {
  it('--jsonl prints one valid line per media file, the summary on stderr, and exits 1 for a broken file', async () => {
    const run = await runCamroll(['scan', lib, '--jsonl', '--no-cache'], { env: home.env });
    expect(run.code, run.stderr).toBe(1);
    const lines = run.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines).toHaveLength(32);
    for (const line of lines) {
      if ('error' in line) {
        expect(ErrorLine.parse(line)).toEqual({
          path: 'broken.jpg',
          error: { code: 'unsupported_format', message: expect.any(String) },
        });
        continue;
      }
      const parsed = MediaLine.parse(line);
      expect(Object.keys(parsed.media)).toEqual(MEDIA_KEYS);
      const bytes = fs.readFileSync(path.join(lib, parsed.path));
      expect(parsed.media.id).toBe(`sha256:${createHash('sha256').update(bytes).digest('hex')}`);
      expect(parsed.media.filename).toBe(path.basename(parsed.path));
      if (parsed.media.taken_at !== null) expect(parsed.media.taken_at).toMatch(/Z$/);
    }
    expect(run.stderr).toMatch(/files found:\s+32/);
    expect(run.stderr).toMatch(/duplicates:\s+1 file repeats/);
    expect(run.stderr).toMatch(/skipped:\s+1 \(appledouble 1\)/);
  });

  it('prints the summary on stdout, writes the report, then serves a re-scan from the cache', async () => {
    const report = path.join(home.dir, 'problems.jsonl');
    const first = await runCamroll(['scan', lib, '--report', report], { env: home.env });
    expect(first.code, first.stderr).toBe(1);
    expect(first.stdout).toMatch(/^Scanned 32 files/);
    expect(first.stdout).toMatch(/0 from the scan cache/);
    expect(first.stdout).toMatch(/damaged:\s+1 \(unsupported_format 1\)/);
    expect(first.stdout).toMatch(/unreadable:\s+0\n/);
    // exifFor: no GPS for n % 7 === 0 (0, 7, 14, 21, 28), no date for n % 11 === 0 (0, 11, 22).
    expect(first.stdout).toMatch(/would be rejected:\s+7 \(missing_coordinates 5, missing_taken_at 2\)/);

    const problems = fs
      .readFileSync(report, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(problems.filter((p) => 'error' in p).map((p) => p.path)).toEqual(['broken.jpg']);
    const rejections = problems.filter((p) => 'rejection' in p);
    expect(rejections.map((p) => p.rejection).sort()).toEqual([
      'missing_coordinates',
      'missing_coordinates',
      'missing_coordinates',
      'missing_coordinates',
      'missing_coordinates',
      'missing_taken_at',
      'missing_taken_at',
    ]);

    const second = await runCamroll(['scan', lib, '--json'], { env: home.env });
    expect(second.code, second.stderr).toBe(1);
    const summary = JSON.parse(second.stdout) as { files: number; cached: number; media: number };
    expect(summary).toMatchObject({ files: 32, media: 31, cached: 32 });
  });

  it('exits 2 for a missing folder, an unknown flag, and --jsonl with --json', async () => {
    const missing = await runCamroll(['scan', path.join(home.dir, 'nowhere')], { env: home.env });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/no such folder or file/);
    const badFlag = await runCamroll(['scan', lib, '--frobnicate'], { env: home.env });
    expect(badFlag.code).toBe(2);
    const both = await runCamroll(['scan', lib, '--jsonl', '--json'], { env: home.env });
    expect(both.code).toBe(2);
    const noDir = await runCamroll(['scan'], { env: home.env });
    expect(noDir.code).toBe(2);
  });

  it('exits 2 for a bad --workers, an empty --exclude and a report file it cannot create', async () => {
    for (const workers of ['0', '65', '1.5', 'many']) {
      const run = await runCamroll(['scan', lib, '--workers', workers], { env: home.env });
      expect(run.code, `--workers ${workers}`).toBe(2);
      expect(run.stderr).toMatch(/--workers must be a whole number from 1 to 64/);
      expect(run.stdout).toBe('');
    }
    const emptyGlob = await runCamroll(['scan', lib, '--exclude', ''], { env: home.env });
    expect(emptyGlob.code).toBe(2);
    const report = await runCamroll(['scan', lib, '--report', path.join(home.dir, 'no-such-folder', 'report.jsonl')], {
      env: home.env,
    });
    expect(report.code).toBe(2);
    expect(report.stderr).toMatch(/cannot write the report file/);
    expect(report.stdout).toBe('');
  });

  it('exits 0 on a clean library and skips junk', async () => {
    const clean = path.join(home.dir, 'clean');
    writePhotoLibrary(clean, { count: 3, minBytes: 500, maxBytes: 900, seed: 9 });
    fs.mkdirSync(path.join(clean, '@eaDir'));
    fs.writeFileSync(path.join(clean, '@eaDir', 'SYNOFILE_THUMB_S.jpg'), 'x');
    fs.writeFileSync(path.join(clean, '.DS_Store'), 'x');
    const run = await runCamroll(['scan', clean], { env: home.env });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/media:\s+3 \(photos 3, videos 0\)/);
    expect(run.stdout).toMatch(/skipped:\s+2 \(nas_thumbnail 1, system_file 1\)/);
  });

  it('stops quietly when the reader of --jsonl goes away (`| head`), and its --html page says so', async () => {
    const page = path.join(home.dir, 'closed.html');
    const child = spawnCamroll(['scan', big, '--jsonl', '--no-cache', '--html', page], { env: home.env });
    let stderr = '';
    child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    await new Promise<void>((resolve) => child.stdout!.once('data', () => resolve()));
    child.stdout!.destroy();
    const code = await new Promise<number | null>((resolve) => child.on('close', (c) => resolve(c)));
    expect(stderr).not.toMatch(/EPIPE|Error/);
    expect(code).toBe(0);
    const html = fs.readFileSync(page, 'utf8');
    expect(html.startsWith('<!doctype html>')).toBe(true);
    expect(html).toContain('The scan stopped when its output was closed.');
  });

  it('stops on Ctrl-C with exit 130, a partial summary, a page that says so and a cache the next run uses', async () => {
    fs.rmSync(cacheFile(), { force: true });
    const page = path.join(home.dir, 'interrupted.html');
    const child = spawnCamroll(['scan', big, '--jsonl', '--workers', '1', '--html', page], { env: home.env });
    // Stop reading stdout after the first lines: the pipe fills and the scan waits there,
    // so the interrupt lands mid-scan whatever the machine's speed.
    const firstChunk = new Promise<void>((resolve) => child.stdout!.once('data', () => resolve()));
    const result = collect(child);
    await firstChunk;
    child.stdout!.pause();
    child.kill('SIGINT');
    child.stdout!.resume();
    const run = await result;
    expect(run.code, run.stderr).toBe(130);
    expect(run.stderr).toMatch(/Scan interrupted after \d+ files/);
    const printed = run.stdout.trim().split('\n').length;
    expect(printed).toBeLessThan(1500);
    expect(fs.readFileSync(page, 'utf8')).toContain(
      'The scan was interrupted. The figures are of the files read until then, not of the whole library.',
    );

    const db = new Database(cacheFile(), { readonly: true });
    expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
    const cachedRows = (db.prepare('SELECT count(*) AS n FROM files').get() as { n: number }).n;
    db.close();
    expect(cachedRows).toBeGreaterThan(0);

    const again = await runCamroll(['scan', big, '--json'], { env: home.env });
    expect(again.code, again.stderr).toBe(0);
    const summary = JSON.parse(again.stdout) as { files: number; cached: number };
    expect(summary.files).toBe(1500);
    expect(summary.cached).toBeGreaterThan(0);
  });
});
