import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MediaMetadata } from '../../src/contract/index.js';
import { InterruptedError, ScanError, UsageError } from '../../src/errors.js';
import { extractFile } from '../../src/scan/extract/index.js';
import type { ExtractFn } from '../../src/scan/read-file.js';
import { createFilePool } from '../../src/scan/pool.js';
import { createItemReader, type ItemReader } from '../../src/scan/worker.js';
import { resolveScanRoots, scanLibrary, scanLibraryBatches, type ScanOptions } from '../../src/scan/scan.js';
import { createScanSummary } from '../../src/scan/summary.js';
import type { ScanEvent, ScanRecord } from '../../src/scan/types.js';
import { jpegBytes, writePhotoLibrary } from '../../bench/scan-library.js';

let dir: string;
let lib: string;
let cacheDir: string;

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'camroll-scan-'));
  lib = path.join(dir, 'library');
  cacheDir = path.join(dir, 'cache');
  writePhotoLibrary(lib, { count: 12, minBytes: 2000, maxBytes: 300_000, perFolder: 5, seed: 7 });
});
afterEach(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});

/** The real extractor, counting the files it was asked to read. */
function countingExtractor(fail?: (absPath: string) => ScanError | null): { reader: ItemReader; calls: string[] } {
  const calls: string[] = [];
  const extract: ExtractFn = async (input) => {
    calls.push(path.relative(lib, input.absPath));
    const error = fail?.(input.absPath);
    if (error) throw error;
    return extractFile(input);
  };
  return { reader: createItemReader(extract), calls };
}

async function scan(options: Partial<ScanOptions> = {}): Promise<ScanEvent[]> {
  const events: ScanEvent[] = [];
  for await (const event of scanLibrary({ roots: [lib], cacheDir, ...options })) events.push(event);
  return events;
}

const records = (events: ScanEvent[]): ScanRecord[] =>
  events.flatMap((e) => (e.type === 'record' ? [e.record] : [])).sort((a, b) => a.path.localeCompare(b.path));

const sha256 = (file: string): string => `sha256:${createHash('sha256').update(fs.readFileSync(file)).digest('hex')}`;

describe('scanLibrary', () => {
  it('gives every media file its content hash as id and metadata the contract accepts', async () => {
    const { reader } = countingExtractor();
    const found = records(await scan({ reader, cache: false }));
    expect(found).toHaveLength(12);
    for (const record of found) {
      expect(record.error).toBeNull();
      expect(record.media!.id).toBe(sha256(record.absPath));
      expect(MediaMetadata.safeParse(record.media).success).toBe(true);
      expect(record.path).toBe(path.relative(lib, record.absPath));
      expect(record.cached).toBe(false);
    }
    // exifFor: photo 1 is in London at +01:00, 15:30 local.
    const photo1 = found.find((r) => r.path.endsWith('IMG_000001.JPG'))!;
    expect(photo1.media!.taken_at).toMatch(/T\d\d:15:30(\.000)?Z$/);
    expect(photo1.source).toEqual({ taken_at: 'exif_offset', coordinates: 'exif_gps' });
  });

  it('gives the same events in batches (scanLibraryBatches) as one by one', async () => {
    const one = await scan({ reader: countingExtractor().reader, cache: false });
    const batches: ScanEvent[][] = [];
    const { reader } = countingExtractor(); // a fresh reader: nothing of the first scan held
    for await (const batch of scanLibraryBatches({ roots: [lib], cacheDir, reader, cache: false })) batches.push(batch);
    expect(batches.length).toBeGreaterThan(0);
    expect(batches.every((batch) => batch.length > 0)).toBe(true);
    const key = (event: ScanEvent): string => JSON.stringify(event);
    expect(batches.flat().map(key).sort()).toEqual(one.map(key).sort());
  });

  it('hashes files larger than the head and the read buffer exactly', async () => {
    const big = path.join(lib, 'big.jpg');
    fs.writeFileSync(big, jpegBytes({ make: 'X' }, 3 * 1024 * 1024 + 17));
    const { reader } = countingExtractor();
    const found = records(await scan({ reader, cache: false }));
    expect(found.find((r) => r.path === 'big.jpg')!.media!.id).toBe(sha256(big));
  });

  it('reads in worker threads with the same results as in this thread', async () => {
    const inline = records(await scan({ workers: 0, cache: false }));
    const threaded = records(await scan({ workers: 2, cache: false }));
    expect(threaded.map((r) => [r.path, r.media, r.source, r.error])).toEqual(
      inline.map((r) => [r.path, r.media, r.source, r.error]),
    );
  });

  it('counts duplicates, errors and would-be rejections in the summary', async () => {
    fs.copyFileSync(path.join(lib, 'roll-0000', 'IMG_000001.JPG'), path.join(lib, 'copy-of-1.jpg'));
    fs.copyFileSync(path.join(lib, 'roll-0000', 'IMG_000001.JPG'), path.join(lib, 'roll-0002', 'again.jpeg'));
    fs.writeFileSync(path.join(lib, 'broken.jpg'), Buffer.from('not a jpeg at all, just text'));
    fs.writeFileSync(path.join(lib, 'empty.png'), '');
    fs.writeFileSync(path.join(lib, 'readme.txt'), 'hi');
    const summary = createScanSummary();
    for (const event of await scan({ workers: 0, cache: false })) summary.add(event);
    const result = summary.result();
    expect(result.files).toBe(16);
    expect(result.media).toBe(14);
    expect(result.errors).toEqual({ unsupported_format: 1, empty_file: 1 });
    expect(result.skipped).toEqual({ not_media: 1 });
    expect(result.duplicates).toEqual({ files: 2, distinct_ids: 12 });
    // exifFor: n % 7 === 0 has no GPS (0, 7), n % 11 === 0 has no date (0, 11): 0 counts as coordinates.
    // The two copies of photo 1 have both.
    expect(result.would_reject).toEqual({ missing_coordinates: 2, missing_taken_at: 1 });
  });

  it('serves an unchanged library from the cache without reading any file', async () => {
    const first = countingExtractor();
    const before = records(await scan({ reader: first.reader }));
    expect(first.calls).toHaveLength(12);

    const second = countingExtractor();
    const after = records(await scan({ reader: second.reader }));
    expect(second.calls).toEqual([]);
    expect(after.every((r) => r.cached)).toBe(true);
    expect(after.map((r) => [r.path, r.media, r.source])).toEqual(before.map((r) => [r.path, r.media, r.source]));
  });

  it('re-reads a file whose mtime changed, and the folder of an edited sidecar', async () => {
    fs.writeFileSync(path.join(lib, 'roll-0001', 'IMG_000005.JPG.json'), '{"title":"x"}');
    await scan({ reader: countingExtractor().reader });

    const touched = path.join(lib, 'roll-0000', 'IMG_000002.JPG');
    fs.utimesSync(touched, new Date(), new Date(Date.now() + 5000));
    fs.writeFileSync(path.join(lib, 'roll-0001', 'IMG_000005.JPG.json'), '{"title":"edited"}');
    const second = countingExtractor();
    await scan({ reader: second.reader });
    expect(second.calls.sort()).toEqual([
      'roll-0000/IMG_000002.JPG',
      'roll-0001/IMG_000005.JPG',
      'roll-0001/IMG_000006.JPG',
      'roll-0001/IMG_000007.JPG',
      'roll-0001/IMG_000008.JPG',
      'roll-0001/IMG_000009.JPG',
    ]);
  });

  it('caches parse errors but not read errors, and --no-cache reads everything', async () => {
    fs.writeFileSync(path.join(lib, 'broken.jpg'), Buffer.from('garbage bytes'));
    const flaky = path.join(lib, 'roll-0000', 'IMG_000003.JPG');
    const first = countingExtractor((p) => (p === flaky ? new ScanError('read_error', p, 'EIO: i/o error') : null));
    const firstRecords = records(await scan({ reader: first.reader }));
    expect(firstRecords.find((r) => r.absPath === flaky)!.error).toEqual({
      code: 'read_error',
      message: 'EIO: i/o error',
    });

    const second = countingExtractor();
    const secondRecords = records(await scan({ reader: second.reader }));
    expect(second.calls).toEqual(['roll-0000/IMG_000003.JPG']);
    expect(secondRecords.find((r) => r.path === 'broken.jpg')).toMatchObject({
      cached: true,
      error: { code: 'unsupported_format' },
    });

    const uncached = countingExtractor();
    await scan({ reader: uncached.reader, cache: false });
    expect(uncached.calls).toHaveLength(13);
  });

  it('reads every file, with one warning, when the cache folder cannot be used', async () => {
    const blocked = path.join(dir, 'not-a-folder');
    fs.writeFileSync(blocked, 'a file where the cache folder should be');
    const { reader, calls } = countingExtractor();
    const events = await scan({ reader, cacheDir: blocked });
    expect(calls).toHaveLength(12);
    expect(records(events).every((r) => r.media !== null && !r.cached)).toBe(true);
    const warnings = events.filter((e) => e.type === 'warning');
    expect(warnings).toEqual([expect.objectContaining({ code: 'cache_unavailable', path: blocked })]);
  });

  it('stops on abort, throws InterruptedError, and leaves a cache the next scan can use', async () => {
    const controller = new AbortController();
    const { reader } = countingExtractor();
    const seen: ScanEvent[] = [];
    await expect(
      (async () => {
        for await (const event of scanLibrary({ roots: [lib], cacheDir, reader, signal: controller.signal })) {
          seen.push(event);
          if (seen.length === 3) controller.abort();
        }
      })(),
    ).rejects.toBeInstanceOf(InterruptedError);
    expect(records(seen).length).toBeLessThan(12);

    const db = new Database(path.join(cacheDir, 'scan-cache.sqlite3'), { readonly: true });
    expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
    db.close();
    const next = countingExtractor();
    const all = records(await scan({ reader: next.reader }));
    expect(all).toHaveLength(12);
    expect(next.calls.length).toBeLessThan(12); // what finished before the abort was kept
  });

  it('stops cleanly when the consumer leaves early: the loop ends, nothing more is read, the next scan is whole', async () => {
    const early = countingExtractor();
    let seen = 0;
    for await (const event of scanLibrary({ roots: [lib], cacheDir, reader: early.reader, cache: false })) {
      if (event.type === 'record') seen += 1;
      if (seen === 1) break;
    }
    expect(seen).toBe(1);
    const readWhenLeft = early.calls.length;
    // The generator's cleanup has run by now (the loop awaited it): nothing reads on.
    await new Promise((resolve) => setImmediate(resolve));
    expect(early.calls.length).toBe(readWhenLeft);
    const again = countingExtractor();
    expect(records(await scan({ reader: again.reader, cache: false }))).toHaveLength(12);
  });

  it('refuses a missing path as a usage error, takes files, and reads nested roots once', () => {
    expect(() => resolveScanRoots([path.join(dir, 'nope')], dir)).toThrow(UsageError);
    const file = path.join(lib, 'roll-0000', 'IMG_000000.JPG');
    expect(resolveScanRoots([file], dir)).toEqual([file]);
    // A file inside a folder also given is read as part of the folder.
    expect(resolveScanRoots([file, lib], dir)).toEqual([lib]);
    expect(resolveScanRoots(['library/roll-0001', 'library', 'library/'], dir)).toEqual([lib]);
    // A folder below the file-system root is walked once, as part of the root.
    expect(resolveScanRoots([lib, '/'], dir)).toEqual(['/']);
  });

  it('shows paths relative to the working folder when scanning several roots', async () => {
    const events = await scan({
      roots: [path.join(lib, 'roll-0000'), path.join(lib, 'roll-0001')],
      cwd: dir,
      workers: 0,
      cache: false,
    });
    fs.writeFileSync(path.join(lib, 'roll-0001', 'x.txt'), '');
    const found = records(events);
    expect(found).toHaveLength(10);
    expect(found[0]!.path).toBe('IMG_000000.JPG'); // records stay relative to their root
    const skips = await scan({
      roots: [path.join(lib, 'roll-0000'), path.join(lib, 'roll-0001')],
      cwd: dir,
      workers: 0,
      cache: false,
    });
    expect(skips.find((e) => e.type === 'skipped')).toEqual({
      type: 'skipped',
      reason: 'not_media',
      path: 'library/roll-0001/x.txt',
    });
  });

  it('reports the total from a listing that runs ahead of the reads, then the exact number', async () => {
    for (let i = 0; i < 60; i++)
      fs.copyFileSync(path.join(lib, 'roll-0000', 'IMG_000001.JPG'), path.join(lib, 'roll-0002', `copy-${i}.jpg`));
    let listingOver!: () => void;
    const over = new Promise<void>((resolve) => (listingOver = resolve));
    const listed: [number, boolean][] = [];
    let walked: number | null = null;
    let seen = 0;
    const { reader } = countingExtractor();
    for await (const event of scanLibrary({
      roots: [lib],
      cacheDir,
      reader,
      cache: false,
      onListed: (files, done) => {
        listed.push([files, done]);
        if (done) listingOver();
      },
      onWalkDone: (files) => (walked = files),
    })) {
      if (event.type !== 'record' || ++seen > 1) continue;
      // The consumer holds the first record: the walk waits, the listing does not.
      await over;
      expect(walked).toBeNull();
    }
    expect(listed.at(-1)).toEqual([72, true]);
    expect(listed.every(([files]) => files <= 72)).toBe(true);
    expect(walked).toBe(72);
    expect(seen).toBe(72);
  });

  it('reads in this thread one group at a time, whatever the extractor awaits (the read buffer is shared)', async () => {
    const extract: ExtractFn = async (input) => {
      const result = await extractFile(input);
      await new Promise((resolve) => setImmediate(resolve)); // another group's read could run here
      return result;
    };
    const pool = await createFilePool({ workers: 0, reader: createItemReader(extract) });
    const files = records(await scan({ workers: 0, cache: false })).map((r) => r.absPath);
    // Two groups in flight at once, as the scan's read stage runs them.
    const [first, second] = await Promise.all([pool.run(files.slice(0, 6)), pool.run(files.slice(6))]);
    const results = [...first!, ...second!];
    expect(results).toHaveLength(12);
    for (const result of results) expect(result.media!.id).toBe(sha256(result.absPath));
    await pool.close();
  });
});
