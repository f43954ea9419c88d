import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createIdSet } from '../../src/scan/id-set.js';
import { createScanSummary, failureCount, wouldBeRejected } from '../../src/scan/summary.js';
import type { ScanRecord } from '../../src/scan/types.js';

const idOf = (n: number): string => `sha256:${createHash('sha256').update(String(n)).digest('hex')}`;

describe('id set', () => {
  it('tells new ids from seen ones across many growths', () => {
    const ids = createIdSet(4);
    for (let n = 0; n < 20_000; n++) expect(ids.add(idOf(n))).toBe(true);
    for (let n = 0; n < 20_000; n += 7) expect(ids.add(idOf(n))).toBe(false);
    expect(ids.size).toBe(20_000);
  });

  it('accepts ids of another form', () => {
    const ids = createIdSet();
    expect(ids.add('IMG_0001')).toBe(true);
    expect(ids.add('IMG_0002')).toBe(true);
    expect(ids.add('IMG_0001')).toBe(false);
    expect(ids.add(`sha256:${'0'.repeat(64)}`)).toBe(true); // all-zero prefix is not "empty"
    expect(ids.add(`sha256:${'0'.repeat(64)}`)).toBe(false);
  });
});

describe('wouldBeRejected', () => {
  it.each([
    [{ latitude: 1, longitude: 2, taken_at: '2024-01-01T00:00:00Z' }, null],
    [{ latitude: null, longitude: 2, taken_at: '2024-01-01T00:00:00Z' }, 'missing_coordinates'],
    [{ latitude: 1, longitude: null, taken_at: null }, 'missing_coordinates'],
    [{ latitude: 1, longitude: 2, taken_at: null }, 'missing_taken_at'],
    [{ latitude: 0, longitude: 0, taken_at: null }, 'missing_taken_at'],
  ])('%o -> %s', (media, expected) => {
    expect(wouldBeRejected(media)).toBe(expected);
  });
});

describe('scan summary', () => {
  const record = (
    over: Partial<ScanRecord>,
    media: Partial<NonNullable<ScanRecord['media']>> | null = {},
  ): ScanRecord => ({
    path: 'a.jpg',
    absPath: '/a.jpg',
    size: 10,
    mtimeMs: 0,
    source: null,
    error: null,
    cached: false,
    media: media && {
      id: idOf(1),
      taken_at: '2024-01-01T00:00:00Z',
      latitude: 1,
      longitude: 2,
      media_type: 'photo',
      filename: 'a.jpg',
      duration_seconds: null,
      device_make: null,
      device_model: null,
      device_lens_model: null,
      ...media,
    },
    ...over,
  });

  it('counts every kind of event', () => {
    const summary = createScanSummary();
    summary.add({ type: 'record', record: record({}) });
    summary.add({ type: 'record', record: record({ cached: true }) }); // same content
    summary.add({ type: 'record', record: record({}, { id: idOf(2), media_type: 'video', taken_at: null }) });
    summary.add({ type: 'record', record: record({ error: { code: 'corrupt_file', message: 'x' } }, null) });
    summary.add({ type: 'record', record: record({ error: { code: 'read_error', message: 'EIO' } }, null) });
    summary.add({ type: 'skipped', reason: 'appledouble', path: '._a.jpg' });
    summary.add({ type: 'skipped', reason: 'appledouble', path: '._b.jpg' });
    summary.add({ type: 'warning', code: 'unreadable_folder', path: 'locked', message: 'EACCES' });
    const result = summary.result();
    expect(result).toEqual({
      files: 5,
      media: 3,
      photos: 2,
      videos: 1,
      bytes: 50,
      cached: 1,
      errors: { corrupt_file: 1, read_error: 1 },
      // A file read and found damaged is not one that could not be read.
      unreadable: 1,
      damaged: 1,
      skipped: { appledouble: 2 },
      warnings: { unreadable_folder: 1 },
      would_reject: { missing_coordinates: 0, missing_taken_at: 1 },
      duplicates: { files: 1, distinct_ids: 2 },
      left_out: {},
    });
    expect(failureCount(result)).toBe(3);
  });

  it('does not count an unusable scan cache as a failure: every file was still read', () => {
    const summary = createScanSummary();
    summary.add({ type: 'warning', code: 'cache_unavailable', path: '/cache', message: 'not a folder' });
    expect(failureCount(summary.result())).toBe(0);
    summary.add({ type: 'warning', code: 'unreadable_file', path: 'x.jpg', message: 'EIO' });
    expect(failureCount(summary.result())).toBe(1);
  });

  it('counts parts not given and sidecars without media as warnings, not failures; an unusable CSV fails', () => {
    const summary = createScanSummary();
    summary.add({ type: 'warning', code: 'missing_parts', path: 'takeout-x', message: 'part 002 missing' });
    summary.add({ type: 'warning', code: 'sidecar_without_media', path: 'a.json', message: 'no media' });
    expect(summary.result().warnings).toEqual({ missing_parts: 1, sidecar_without_media: 1 });
    expect(failureCount(summary.result())).toBe(0);
    summary.add({ type: 'warning', code: 'photo_details_unusable', path: 'Photo Details.csv', message: 'no imgName' });
    expect(failureCount(summary.result())).toBe(1);
  });
});
