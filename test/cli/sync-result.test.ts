import { describe, expect, it } from 'vitest';
import { renderCounts, renderWatchTotals, syncCompleteLine } from '../../src/cli/output/sync-result.js';
import { describeBatch } from '../../src/cli/output/sync-events.js';
import type { SyncResult } from '../../src/sync/run.js';
import { createSyncTally } from '../../src/sync/summary.js';

const result = (over: Partial<SyncResult>): SyncResult => ({
  user_id: 'u',
  target: { kind: 'remote', base_url: 'https://h/v1' },
  pass: 'full',
  dry_run: false,
  sync_complete: false,
  resumed_pending: 0,
  outcome: 'ok',
  ...createSyncTally().counts,
  events: [],
  stats: null,
  ...over,
});

describe('the sync summary says whether sync-complete was called, and why not', () => {
  it.each([
    [{ sync_complete: true }, 'called (the whole library was examined)'],
    [{ sync_complete: true, scan_errors: 1 }, 'called (the whole library was examined; 1 file with errors was read, its metadata could not be)'],
    [{ sync_complete: true, scan_errors: 4 }, 'called (the whole library was examined; 4 files with errors were read, their metadata could not be)'],
    [{ outcome: 'failed' as const }, 'not called: some batches failed after retries'],
    [{ outcome: 'interrupted' as const }, 'not called: the sync was interrupted'],
    [{ outcome: 'outage' as const }, 'not called: the host went away'],
    [{ outcome: 'not_examined' as const, not_examined: '1 folder or file could not be read' }, 'not called: 1 folder or file could not be read'],
  ])('%j', (over, expected) => {
    expect(syncCompleteLine(result(over))).toBe(`sync-complete:          ${expected}`);
  });

  it('names pending items on a line of their own, only when there are some', () => {
    const none = renderCounts(result({}), { dryRun: false });
    expect(none.some((line) => line.startsWith('pending:'))).toBe(false);
    const some = renderCounts(result({ failed_batches: 1, pending: 12 }), { dryRun: false });
    expect(some).toContain('failed batches:         1');
    expect(some).toContain('pending:                12 items sent but not answered (sent again by the next run)');
  });
});

describe('watch lines', () => {
  it('one line per batch, from the counts before and after it', () => {
    const summary = createSyncTally();
    const before = structuredClone(summary.counts);
    summary.file('media');
    summary.file('media');
    summary.alreadySent();
    summary.batchAnswered(1, { accepted: 1, matched: 1, rejected: [], matches: [{ media_id: 'a', matched: true, event_id: 5, venue_id: null }] });
    expect(describeBatch(2, before, summary.counts)).toBe('watch: 2 new or changed files, sent 1 (accepted 1, matched 1, rejected 0), 1 already sent');
    const middle = structuredClone(summary.counts);
    summary.file('media');
    summary.alreadySent();
    expect(describeBatch(1, middle, summary.counts)).toBe('watch: 1 new or changed file, nothing new to send, 1 already sent');
    const last = structuredClone(summary.counts);
    summary.file('media');
    summary.batchFailed(1);
    expect(describeBatch(1, last, summary.counts)).toBe('watch: 1 new or changed file, 1 batch failed, 1 item pending');
    // Cut off before an answer (an outage): never "nothing new to send".
    const cut = structuredClone(summary.counts);
    summary.file('media');
    summary.batchAbandoned(1);
    expect(describeBatch(1, cut, summary.counts)).toBe('watch: 1 new or changed file, not sent, 1 item pending');
    expect(renderWatchTotals({ ...summary.counts, changes: 3, unreadable: 0 })).toBe(
      'watch: 3 batches of changes: 5 files, sent 1, accepted 1, matched 1, rejected 0, already sent 2, failed batches 1 (2 items pending)',
    );
  });
});
