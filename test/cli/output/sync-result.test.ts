import { describe, expect, it } from 'vitest';
import {
  failedBatchesHint,
  renderCounts,
  renderResult,
  renderWatchTotals,
  syncCompleteLine,
  unusableFilesHint,
  watchProblemsHint,
} from '../../../src/cli/output/sync-result.js';
import { describeBatch, describeRoots } from '../../../src/cli/output/sync-events.js';
import type { SyncResult } from '../../../src/sync/run.js';
import { createSyncTally } from '../../../src/sync/summary.js';

const result = (over: Partial<SyncResult>): SyncResult => ({
  user_id: 'u',
  user_created: false,
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
    [
      { sync_complete: true, scan_errors: 1, damaged: 1 },
      'called (the whole library was examined; 1 file was read but is damaged)',
    ],
    [
      { sync_complete: true, scan_errors: 4, damaged: 4 },
      'called (the whole library was examined; 4 files were read but are damaged)',
    ],
    [{ outcome: 'failed' as const }, 'not called: some batches failed after retries'],
    [{ outcome: 'interrupted' as const }, 'not called: the sync was interrupted'],
    [{ outcome: 'outage' as const }, 'not called: the host went away'],
    [
      { outcome: 'not_examined' as const, not_examined: '1 folder or file could not be read' },
      'not called: 1 folder or file could not be read',
    ],
  ])('%j', (over, expected) => {
    expect(syncCompleteLine(result(over))).toBe(`sync-complete:          ${expected}`);
  });

  it('names pending items on a line of their own, only when there are some', () => {
    const none = renderCounts(result({}), { dryRun: false });
    expect(none.some((line) => line.startsWith('pending:'))).toBe(false);
    const some = renderCounts(result({ failed_batches: 1, pending: 12 }), { dryRun: false });
    expect(some).toContain('failed batches:         1');
    expect(some).toContain('pending:                12 items sent but not answered (sent again by the next run)');
    const one = renderCounts(result({ failed_batches: 1, pending: 1 }), { dryRun: false });
    expect(one).toContain('pending:                1 item sent but not answered (sent again by the next run)');
  });
});

describe('watch lines', () => {
  it('the watching line names what is watched: folders, exports, files', () => {
    expect(describeRoots({ folders: 1, exports: 0, files: 0 })).toBe('1 folder');
    expect(describeRoots({ folders: 0, exports: 2, files: 0 })).toBe('2 exports');
    expect(describeRoots({ folders: 2, exports: 1, files: 0 })).toBe('2 folders and 1 export');
    expect(describeRoots({ folders: 1, exports: 1, files: 3 })).toBe('1 folder, 1 export and 3 files');
    expect(describeRoots({ folders: 0, exports: 0, files: 0 })).toBe('0 folders');
  });

  it("a batch's files not sent for their origin, or collapsed into a pair, are said", () => {
    const summary = createSyncTally();
    // A Live Photo's video whose still was sent before, and a partner's photo: said, not dropped silently.
    const evidence = structuredClone(summary.counts);
    const origin = (left: 'live_photo_video' | 'partner_shared', signal: string) => ({
      origin: left,
      rule: 'r',
      signal,
      pair: null,
      left_out: left,
    });
    summary.file('media');
    summary.leftOut(origin('live_photo_video', 'content identifier'));
    expect(describeBatch(1, evidence, summary.counts)).toBe(
      'watch: 1 new or changed file, nothing new to send, 1 collapsed into its pair',
    );
    const partner = structuredClone(summary.counts);
    summary.file('media');
    summary.file('media');
    summary.leftOut(origin('partner_shared', 'Takeout'));
    summary.leftOut(origin('partner_shared', 'Takeout'));
    expect(describeBatch(2, partner, summary.counts)).toBe(
      'watch: 2 new or changed files, nothing new to send, 2 left out by origin',
    );
  });

  it('one line per batch, from the counts before and after it', () => {
    const summary = createSyncTally();
    const before = structuredClone(summary.counts);
    summary.file('media');
    summary.file('media');
    summary.alreadySent();
    summary.batchAnswered(1, {
      accepted: 1,
      matched: 1,
      rejected: [],
      matches: [{ media_id: 'a', matched: true, event_id: 5, venue_id: null }],
    });
    expect(describeBatch(2, before, summary.counts)).toBe(
      'watch: 2 new or changed files, sent 1 (accepted 1, matched 1, rejected 0), 1 already sent',
    );
    const middle = structuredClone(summary.counts);
    summary.file('media');
    summary.alreadySent();
    expect(describeBatch(1, middle, summary.counts)).toBe(
      'watch: 1 new or changed file, nothing new to send, 1 already sent',
    );
    const last = structuredClone(summary.counts);
    summary.file('media');
    summary.batchFailed(1);
    expect(describeBatch(1, last, summary.counts)).toBe('watch: 1 new or changed file, 1 batch failed, 1 item pending');
    // Cut off before an answer (an outage): never "nothing new to send".
    const cut = structuredClone(summary.counts);
    summary.file('media');
    summary.batchAbandoned(1);
    expect(describeBatch(1, cut, summary.counts)).toBe('watch: 1 new or changed file, not sent, 1 item pending');
    // Archives left closed (no --archives) say so, and a batch of only those has nothing to send.
    const closed = structuredClone(summary.counts);
    expect(describeBatch(1, closed, summary.counts, 1)).toBe(
      'watch: 1 new or changed file, 1 archive not opened (add --archives to read it in place)',
    );
    summary.file('media');
    summary.alreadySent();
    expect(describeBatch(3, closed, summary.counts, 2)).toBe(
      'watch: 3 new or changed files, nothing new to send, 1 already sent, 2 archives not opened (add --archives ' +
        'to read them in place)',
    );
    expect(renderWatchTotals({ ...summary.counts, changes: 3, not_read: 0, archives_not_opened: 0 })).toBe(
      'watch: 3 batches of changes: 6 files, sent 1, accepted 1, matched 1, rejected 0, already sent 3, failed ' +
        'batches 1 (2 items pending)',
    );
    expect(renderWatchTotals({ ...summary.counts, changes: 3, not_read: 0, archives_not_opened: 2 })).toMatch(
      /, failed batches 1 \(2 items pending\), 2 archives not opened \(add --archives to read them in place\)$/,
    );
  });
});

describe('one vocabulary: unreadable is what could not be read, damaged what was read and is unusable', () => {
  it('the files line counts both apart, and rejection reasons are spelled as scan spells them', () => {
    const tally = createSyncTally();
    tally.file('media');
    tally.file('error', 'read_error');
    tally.file('error', 'corrupt_file');
    tally.file('error', 'truncated_file');
    tally.duplicate();
    const lines = renderCounts(
      result({ ...tally.counts, rejected: { missing_coordinates: 2, missing_taken_at: 1, invalid: 0 } }),
      { dryRun: false },
    );
    expect(lines[0]).toBe('files:                  4 (1 with metadata, 1 unreadable, 2 damaged, 1 duplicate)');
    expect(lines).toContain('rejected:               3 (missing_coordinates 2, missing_taken_at 1, invalid 0)');
    expect(renderCounts(result({}), { dryRun: true })).toContain(
      'would be rejected:      0 (missing_coordinates 0, missing_taken_at 0, invalid 0)',
    );
  });

  it('hints say which, with plurals that agree', () => {
    expect(unusableFilesHint({ unreadable: 0, damaged: 0 })).toBeNull();
    expect(unusableFilesHint({ unreadable: 1, damaged: 0 })).toBe(
      '1 file could not be read; --report FILE lists them with the reason',
    );
    expect(unusableFilesHint({ unreadable: 0, damaged: 4 })).toBe(
      '4 files are damaged (read, but no metadata could be taken from them); --report FILE lists them with the reason',
    );
    expect(unusableFilesHint({ unreadable: 2, damaged: 1 })).toBe(
      '2 files could not be read and 1 is damaged; --report FILE lists them with the reason',
    );
    expect(failedBatchesHint({ failed_batches: 1, pending: 1 })).toBe(
      '1 batch failed after retries; its 1 item stays pending: run sync again',
    );
    expect(failedBatchesHint({ failed_batches: 2, pending: 20 })).toBe(
      '2 batches failed after retries; their 20 items stay pending: run sync again',
    );
    const totals = {
      ...createSyncTally().counts,
      changes: 1,
      not_read: 1,
      failed_batches: 1,
      pending: 1,
      archives_not_opened: 0,
    };
    expect(watchProblemsHint(totals)).toBe(
      'while watching, 1 batch failed, 1 item stays pending and 1 file could not be read: run sync again',
    );
    expect(
      renderWatchTotals({ ...createSyncTally().counts, changes: 1, files: 1, not_read: 0, archives_not_opened: 0 }),
    ).toMatch(/^watch: 1 batch of changes: 1 file, /);
  });

  it('a profile the run created is in the summary (so --quiet loses nothing)', () => {
    expect(renderResult(result({ user_created: true }), { history: false })).toContain(
      '\nprofile:                created by this run (a real profile on the service)\n',
    );
    expect(renderResult(result({ user_created: false }), { history: false })).not.toContain('profile:');
  });
});
