import * as fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openScanCache, type CacheKey, type CachedResult } from '../../src/scan/cache.js';

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'camroll-cache-'));
});
afterEach(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});

const key: CacheKey = { absPath: '/photos/a.jpg', size: 1234, mtimeMs: 1700000000123.25, ino: 42, sidecarFingerprint: '' };
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

  it('rebuilds a cache written with another schema version', () => {
    const cache = openScanCache({ dir, extractorVersion: 1 });
    cache.put(key, result);
    cache.close();
    const db = new Database(cache.file);
    db.pragma('user_version = 99');
    db.close();
    const again = openScanCache({ dir, extractorVersion: 1 });
    expect(again.get(key)).toBeNull();
    again.close();
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
