import * as fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openScanCache, type CacheKey, type CachedResult } from '../../src/scan/cache.js';
import { writePhotoLibrary } from '../../bench/scan-library.js';

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'camroll-cache-'));
});
afterEach(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});

const key: CacheKey = {
  absPath: '/photos/a.jpg',
  size: 1234,
  mtimeMs: 1700000000123.25,
  ino: 42,
  sidecarFingerprint: '',
};
const result: CachedResult = {
  media: {
    id: `sha256:${'ab'.repeat(32)}`,
    taken_at: '2024-07-12T20:15:00Z',
    latitude: 40.75,
    longitude: -73.99,
    media_type: 'photo',
    filename: 'a.jpg',
    duration_seconds: null,
    device_make: 'Apple',
    device_model: 'iPhone 13',
    device_lens_model: null,
  },
  source: { taken_at: 'exif_offset', coordinates: 'exif_gps' },
  error: null,
};

/** The schema version this camroll writes (read from a fresh cache). */
let CURRENT_VERSION = 0;
const readVersion = (file: string): number => {
  const db = new Database(file, { readonly: true });
  try {
    return db.pragma('user_version', { simple: true }) as number;
  } finally {
    db.close();
  }
};
const countRows = (file: string): number => {
  const db = new Database(file, { readonly: true });
  try {
    return (db.prepare('SELECT count(*) AS n FROM files').get() as { n: number }).n;
  } finally {
    db.close();
  }
};
beforeEach(() => {
  const probe = fs.mkdtempSync(path.join(os.tmpdir(), 'camroll-cache-version-'));
  const cache = openScanCache({ dir: probe, extractorVersion: 1 });
  cache.close();
  CURRENT_VERSION = readVersion(cache.file);
  fs.rmSync(probe, { recursive: true, force: true });
});

describe('scan cache', () => {
  it('returns what was stored, after close and reopen', () => {
    const cache = openScanCache({ dir, extractorVersion: 3 });
    expect(cache.get(key)).toBeNull();
    cache.put(key, result);
    cache.close();
    const again = openScanCache({ dir, extractorVersion: 3 });
    expect(again.get(key)).toEqual(result);
    again.close();
  });

  it.each([
    ['size', { size: 1235 }],
    ['mtime', { mtimeMs: 1700000000124.25 }],
    ['inode', { ino: 43 }],
    ['sidecars', { sidecarFingerprint: 'abc' }],
    ['path', { absPath: '/photos/b.jpg' }],
  ])('misses when the %s differs', (_name, change) => {
    const cache = openScanCache({ dir, extractorVersion: 3 });
    cache.put(key, result);
    cache.close();
    const again = openScanCache({ dir, extractorVersion: 3 });
    expect(again.get({ ...key, ...change })).toBeNull();
    expect(again.get(key)).not.toBeNull();
    again.close();
  });

  it('misses results of another extractor version', () => {
    const cache = openScanCache({ dir, extractorVersion: 3 });
    cache.put(key, result);
    cache.close();
    const newer = openScanCache({ dir, extractorVersion: 4 });
    expect(newer.get(key)).toBeNull();
    newer.close();
  });

  it('stores error results too', () => {
    const cache = openScanCache({ dir, extractorVersion: 1 });
    const failed: CachedResult = { media: null, source: null, error: { code: 'corrupt_file', message: 'bad IFD' } };
    cache.put(key, failed);
    cache.close();
    const again = openScanCache({ dir, extractorVersion: 1 });
    expect(again.get(key)).toEqual(failed);
    again.close();
  });

  it('rebuilds a cache written with an older schema version', () => {
    const cache = openScanCache({ dir, extractorVersion: 1 });
    cache.put(key, result);
    cache.close();
    const db = new Database(cache.file);
    db.pragma('user_version = 1');
    db.close();
    const again = openScanCache({ dir, extractorVersion: 1 });
    expect(again.get(key)).toBeNull();
    again.close();
    expect(readVersion(cache.file)).toBe(CURRENT_VERSION);
  });

  it('leaves a cache written by a newer camroll alone, and says so', () => {
    const cache = openScanCache({ dir, extractorVersion: 1 });
    cache.put(key, result);
    cache.close();
    const db = new Database(cache.file);
    db.pragma('user_version = 99');
    db.close();
    expect(() => openScanCache({ dir, extractorVersion: 1 })).toThrow(
      expect.objectContaining({
        name: 'LocalStateError',
        code: 'cache_too_new',
        message: expect.stringContaining('upgrade camroll'),
      }),
    );
    expect(readVersion(cache.file)).toBe(99);
    expect(countRows(cache.file)).toBe(1);
  });

  it('never resets a cache another scan is writing: SQLITE_BUSY past the timeout is an error, and its rows stay', () => {
    const cache = openScanCache({ dir, extractorVersion: 1 });
    cache.put(key, result);
    cache.close();
    // An older layout, so opening must write; another connection holds the write lock meanwhile.
    const other = new Database(cache.file);
    other.pragma('user_version = 1');
    other.exec('BEGIN IMMEDIATE');
    try {
      let thrown: unknown;
      try {
        openScanCache({ dir, extractorVersion: 1, busyTimeoutMs: 50 });
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toMatchObject({
        code: 'cache_unreadable',
        cause: expect.objectContaining({ code: 'SQLITE_BUSY' }),
      });
    } finally {
      other.exec('ROLLBACK');
      other.close();
    }
    expect(countRows(cache.file)).toBe(1);
  });

  it('creates the file with mode 0600, its folder when missing, and the schema once', () => {
    const nested = path.join(dir, 'a', 'b');
    const cache = openScanCache({ dir: nested, extractorVersion: 1 });
    cache.close();
    expect(fs.statSync(cache.file).mode & 0o777).toBe(0o600);
    expect(readVersion(cache.file)).toBe(CURRENT_VERSION);
    // Opening again changes nothing (IF NOT EXISTS, version already current).
    openScanCache({ dir: nested, extractorVersion: 1 }).close();
    expect(countRows(cache.file)).toBe(0);
  });

  it('replaces a damaged database file instead of failing', () => {
    const file = path.join(dir, 'scan-cache.sqlite3');
    fs.writeFileSync(file, 'this is not a database '.repeat(100));
    const cache = openScanCache({ dir, extractorVersion: 1 });
    cache.put(key, result);
    cache.close();
    const again = openScanCache({ dir, extractorVersion: 1 });
    expect(again.get(key)).toEqual(result);
    again.close();
  });

  it('writes in groups, and close writes the rest', () => {
    const cache = openScanCache({ dir, extractorVersion: 1 });
    for (let i = 0; i < 600; i++) cache.put({ ...key, absPath: `/p/${i}.jpg` }, result);
    // Another connection sees the groups already committed, not yet the tail.
    const reader = new Database(cache.file, { readonly: true });
    const before = (reader.prepare('SELECT count(*) AS n FROM files').get() as { n: number }).n;
    expect(before).toBe(512);
    cache.close();
    const after = (reader.prepare('SELECT count(*) AS n FROM files').get() as { n: number }).n;
    expect(after).toBe(600);
    reader.close();
  });
});

describe('two scans at once on one cache', () => {
  const run = (lib: string, cacheDir: string): Promise<{ code: number | null; stdout: string; stderr: string }> =>
    new Promise((resolve, reject) => {
      const child = spawn(
        process.execPath,
        ['--import', 'tsx', path.join(import.meta.dirname, 'helpers', 'scan-once.ts'), lib, cacheDir],
        {
          stdio: ['ignore', 'pipe', 'pipe'],
        },
      );
      let stdout = '';
      let stderr = '';
      child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
      child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
      child.on('error', reject);
      child.on('close', (code) => resolve({ code, stdout, stderr }));
    });
  const parse = (stdout: string) => {
    const [head, ...lines] = stdout.trim().split('\n');
    const records = lines.map(
      (l) => JSON.parse(l) as { path: string; id: string | null; error: string | null; cached: boolean },
    );
    return {
      warnings: (JSON.parse(head!) as { warnings: string[] }).warnings,
      records: records.sort((a, b) => a.path.localeCompare(b.path)),
    };
  };

  it('both finish with every file, neither resets the other, and the next scan is served from the cache', async () => {
    const lib = path.join(dir, 'library');
    const cacheDir = path.join(dir, 'cache');
    writePhotoLibrary(lib, { count: 400, minBytes: 500, maxBytes: 4000, perFolder: 100, seed: 11 });
    const [a, b] = await Promise.all([run(lib, cacheDir), run(lib, cacheDir)]);
    expect(a.code, a.stderr).toBe(0);
    expect(b.code, b.stderr).toBe(0);
    const first = parse(a.stdout);
    const second = parse(b.stdout);
    expect(first.warnings).toEqual([]);
    expect(second.warnings).toEqual([]);
    expect(first.records).toHaveLength(400);
    const withoutCached = (records: typeof first.records) => records.map(({ cached: _, ...rest }) => rest);
    const truth = (r: { path: string }) =>
      `sha256:${createHash('sha256')
        .update(fs.readFileSync(path.join(lib, r.path)))
        .digest('hex')}`;
    const wrong = (records: typeof first.records) =>
      records.filter((r) => r.id !== truth(r)).map((r) => `${r.path} cached=${r.cached}`);
    expect({ first: wrong(first.records), second: wrong(second.records) }).toEqual({ first: [], second: [] });
    expect(withoutCached(second.records)).toEqual(withoutCached(first.records));
    expect(first.records.every((r) => r.id !== null && r.error === null)).toBe(true);

    const third = parse((await run(lib, cacheDir)).stdout);
    expect(withoutCached(third.records)).toEqual(withoutCached(first.records));
    expect(third.records.every((r) => r.cached)).toBe(true);
  });
});
