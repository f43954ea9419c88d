import { PassThrough } from 'node:stream';
import { describe, expect, it, vi } from 'vitest';
import { createProgress, progressFigures, type ProgressSnapshot } from '../../../src/cli/output/sync-progress.js';
import { etaText, fileCountText } from '../../../src/cli/output/progress.js';
import { createSyncTally } from '../../../src/sync/summary.js';

function snapshotOf(
  change: (counts: ProgressSnapshot['counts']) => void,
  rest: Partial<ProgressSnapshot> = {},
): ProgressSnapshot {
  const counts = createSyncTally().counts;
  change(counts);
  return { counts, queued: 0, scanDone: false, ...rest };
}

describe('sync progress figures', () => {
  it('counts every way a file ends as done, already answered ones included, against the listed total', () => {
    const snapshot = snapshotOf(
      (c) => {
        c.files = 60;
        c.sent = 20;
        c.skipped_already_sent = 25;
        c.duplicates = 3;
        c.scan_errors = 2;
        c.pending = 0;
      },
      { total: 100, totalFinal: true, queued: 30 },
    );
    const f = progressFigures(snapshot, 10);
    expect(f).toMatchObject({
      done: 50,
      total: 100,
      totalFinal: true,
      rate: 5,
      answered: 45,
      alreadyAnswered: 25,
      pending: 0,
    });
    expect(etaText(f)).toBe('10s');
    expect(fileCountText(f)).toBe('50/100 files');
  });

  it('says listing while the total still grows, and ? before the first folder', () => {
    const growing = progressFigures(
      snapshotOf(() => undefined, { total: 40, totalFinal: false }),
      1,
    );
    expect([fileCountText(growing), etaText(growing)]).toEqual(['0/40+ files', 'listing…']);
    const unknown = progressFigures(
      snapshotOf(() => undefined),
      1,
    );
    expect([fileCountText(unknown), etaText(unknown)]).toEqual(['0/? files', 'listing…']);
  });

  it('an export whose bytes are known from the start (a .tgz: its file size) has an ETA while the file count is open', () => {
    const f = progressFigures(
      snapshotOf(
        (c) => {
          c.sent = 30;
        },
        { total: 30, totalFinal: false, bytes: { done: 200e6, total: 600e6, cached: 0 } },
      ),
      10,
    );
    // 200 MB in 10 s: 400 MB left is 20 s, whatever the files weigh.
    expect([fileCountText(f), etaText(f)]).toEqual(['30/30+ files', '20s']);
  });

  it('once the scan is over, the ETA counts answers in files: batches still in flight are not 0s', () => {
    const f = progressFigures(
      snapshotOf(
        (c) => {
          c.sent = 40;
        },
        { total: 60, totalFinal: true, scanDone: true, bytes: { done: 600e6, total: 600e6, cached: 0 } },
      ),
      10,
    );
    expect([fileCountText(f), etaText(f)]).toEqual(['40/60 files', '5s']);
  });

  it('at an interruption, pending is what the journal holds: items never sent are not pending', () => {
    // 2 batches of 10 answered, one of 10 cut short in flight; 7 items dropped before sending
    // are counted nowhere by the pipeline (the next run finds them new).
    const snapshot = snapshotOf(
      (c) => {
        c.files = 40;
        c.sent = 20;
        c.pending = 10;
      },
      { total: 40, queued: 37 },
    );
    const f = progressFigures(snapshot, 1);
    expect(f.answered).toBe(20); // "20 items already answered are skipped" on resume
    expect(f.pending).toBe(10); // "10 pending items are sent again"
    expect(f.done).toBe(30);
  });

  it('plain lines carry the total, the rate and the ETA', () => {
    const stream = new PassThrough();
    let output = '';
    stream.on('data', (d: Buffer) => (output += d.toString()));
    // The display writes on an interval: fake timers step it, no real waiting.
    vi.useFakeTimers();
    try {
      let now = 0;
      const view = createProgress({ stream, isTTY: false, intervalMs: 1000, now: () => now });
      view.update(
        snapshotOf(
          (c) => {
            c.files = 10;
            c.sent = 8;
          },
          { total: 16, totalFinal: true, queued: 10 },
        ),
      );
      expect(output).toBe('');
      now = 2000;
      vi.advanceTimersByTime(1000);
      expect(output).toBe(
        'sync: 8/16 files, 4.0 files/s, ETA 2s, read 10, answered 8 (0 in earlier runs), pending 0, accepted 0, ' +
          'matched 0, rejected 0, failed batches 0\n',
      );
      // The last figures once more at the end (the job lasted an interval or more), once only.
      output = '';
      view.update(
        snapshotOf(
          (c) => {
            c.files = 16;
            c.sent = 16;
          },
          { total: 16, totalFinal: true, queued: 16 },
        ),
      );
      view.stop();
      view.stop();
      vi.advanceTimersByTime(5000);
      expect(output).toBe(
        'sync: 16/16 files, 8.0 files/s, ETA 0s, read 16, answered 16 (0 in earlier runs), pending 0, accepted 0, ' +
          'matched 0, rejected 0, failed batches 0\n',
      );
    } finally {
      vi.useRealTimers();
    }
  });
});
