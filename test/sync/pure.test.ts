import { describe, expect, it } from 'vitest';
import { createBatcher } from '../../src/sync/batcher.js';
import { compactId } from '../../src/sync/dedupe.js';
import { predictRejection } from '../../src/sync/predict.js';
import { createSyncTally, decideOutcome, totalRejected } from '../../src/sync/summary.js';

const sha = (n: number): string => `sha256:${n.toString(16).padStart(64, '0')}`;

describe('createBatcher', () => {
  it.each([
    [1, 3, [[0], [1], [2]], null],
    [
      2,
      5,
      [
        [0, 1],
        [2, 3],
      ],
      [4],
    ],
    [3, 3, [[0, 1, 2]], null],
    [200, 2, [], [0, 1]],
  ])('size %i over %i items', (size, n, fulls, last) => {
    const b = createBatcher<number>(size);
    const out: number[][] = [];
    for (let i = 0; i < n; i += 1) {
      const full = b.add(i);
      if (full) out.push(full);
    }
    expect(out).toEqual(fulls);
    expect(b.flush()).toEqual(last);
    expect(b.flush()).toBeNull();
  });

  it.each([0, 201, 1.5, -1])('rejects size %s', (size) => {
    expect(() => createBatcher(size)).toThrow(RangeError);
  });
});

describe('compactId', () => {
  it('keeps a sha id compact and distinct from a raw id of the same characters', () => {
    const key = compactId(sha(7));
    expect(key.length).toBe(33);
    const raw = key.slice(1);
    expect(compactId(raw)).not.toBe(key);
  });
});

describe('predictRejection', () => {
  const base = { id: 'a', taken_at: '2024-07-13T00:30:00Z', latitude: 40.75, longitude: -73.99 };
  it.each([
    [base, null],
    [{ ...base, latitude: null }, 'missing_coordinates'],
    [{ ...base, longitude: null }, 'missing_coordinates'],
    [{ ...base, taken_at: null }, 'missing_taken_at'],
    [{ ...base, taken_at: null, latitude: null }, 'missing_coordinates'],
    [{ ...base, latitude: 91 }, 'invalid'],
    [{ ...base, id: 'x'.repeat(256) }, 'invalid'],
    [{ ...base, taken_at: 'yesterday' }, 'invalid'],
  ])('%j -> %s', (media, expected) => {
    expect(predictRejection(media)).toBe(expected);
  });
});

describe('summary', () => {
  it('accumulates batch answers, failures and abandons', () => {
    const s = createSyncTally();
    s.file('media');
    s.file('media');
    s.file('error');
    s.duplicate();
    s.alreadySent();
    s.batchAnswered(3, {
      accepted: 2,
      matched: 1,
      rejected: [{ id: 'c', reason: 'missing_taken_at' }],
      matches: [
        { media_id: 'a', matched: true, event_id: 1, venue_id: null },
        { media_id: 'b', matched: false, event_id: null, venue_id: 6 },
      ],
    });
    s.batchFailed(4);
    s.batchAbandoned(5);
    expect(s.counts).toMatchObject({
      files: 3,
      media: 2,
      scan_errors: 1,
      duplicates: 1,
      skipped_already_sent: 1,
      sent: 3,
      accepted: 2,
      matched: 1,
      unlicensed: 1,
      batches: 1,
      failed_batches: 1,
      pending: 9,
    });
    expect(s.counts.rejected).toEqual({ missing_coordinates: 0, missing_taken_at: 1, invalid: 0 });
    expect(totalRejected(s.counts)).toBe(1);
  });

  it.each([
    [0, false, 'ok'],
    [2, false, 'failed'],
    [0, true, 'interrupted'],
    [3, true, 'interrupted'],
  ] as const)('failed_batches=%i interrupted=%s -> %s', (failed, interrupted, outcome) => {
    expect(decideOutcome({ failed_batches: failed }, interrupted)).toBe(outcome);
  });
});
