import { describe, expect, it } from 'vitest';
import { InterruptedError, OutageError } from '../../src/errors.js';
import { decideEnding, INTERRUPTED, passFailed, startFailure, type SyncEnded } from '../../src/sync/ending.js';
import type { DryRunResult, SyncResult, WatchTotals } from '../../src/sync/session.js';
import { createSyncTally } from '../../src/sync/summary.js';

const counts = createSyncTally().counts;

const result = (outcome: SyncResult['outcome'], pending = 0): SyncResult => ({
  ...counts,
  pending,
  user_id: '7d9f6a52-1c3b-4f0e-9a1d-2b8c4e6f0a11',
  user_created: false,
  target: { kind: 'embedded', base_url: 'http://127.0.0.1:1/v1' },
  pass: 'full',
  dry_run: false,
  sync_complete: outcome === 'ok',
  resumed_pending: 0,
  outcome,
  events: [],
  stats: null,
});

const dry = (outcome: DryRunResult['outcome']): DryRunResult => ({ ...counts, dry_run: true, outcome });

const watched = (over: Partial<WatchTotals> = {}): WatchTotals => ({
  ...counts,
  changes: 2,
  not_read: 0,
  archives_not_opened: 0,
  ...over,
});

const ended = (over: Partial<SyncEnded>): SyncEnded => ({
  result: result('ok'),
  watch: null,
  outageReason: null,
  ...over,
});

describe('decideEnding', () => {
  it('the outage stop of an interrupted pass is an outage: the summary says outage, and the pending items are named', () => {
    const ending = decideEnding(
      ended({ result: result('interrupted', 7), outageReason: 'the host stopped answering' }),
      false,
    );
    expect(ending.kind).toBe('outage');
    if (ending.kind !== 'outage') return;
    expect(ending.result.outcome).toBe('outage');
    expect(ending.error).toBeInstanceOf(OutageError);
    expect(ending.error.message).toBe(
      'sync stopped: the host stopped answering; 7 items stay pending and the journal is consistent: run the same ' +
        'command again to resume',
    );
  });

  it('an outage while watching counts the pass and the watch pending items together', () => {
    const ending = decideEnding(
      ended({ result: result('ok', 1), watch: watched({ pending: 3 }), outageReason: 'gone' }),
      false,
    );
    expect(ending.kind).toBe('outage');
    if (ending.kind === 'outage') expect(ending.error.message).toContain('; 4 items stay pending');
  });

  it('Ctrl-C wins over the outage stop: the user stopped it', () => {
    const ending = decideEnding(ended({ result: result('interrupted'), outageReason: 'gone' }), true);
    expect(ending.kind).toBe('interrupted');
    if (ending.kind === 'interrupted') expect(ending.error).toEqual(new InterruptedError(INTERRUPTED));
  });

  it('an outage reason after a pass that ended on its own leaves the pass outcome', () => {
    const ending = decideEnding(ended({ result: result('failed'), outageReason: 'gone' }), false);
    expect(ending).toEqual({ kind: 'pass', result: result('failed'), failed: true });
  });

  it(
    'a watch stopped by the user is its normal end; a failed batch or an unread file fails it, a cut-off item does ' +
      'not',
    () => {
      expect(decideEnding(ended({ watch: watched() }), true)).toMatchObject({
        kind: 'watched',
        unfinished: false,
        failed: false,
      });
      expect(decideEnding(ended({ watch: watched({ pending: 2 }) }), true)).toMatchObject({
        kind: 'watched',
        unfinished: true,
        failed: false,
      });
      expect(decideEnding(ended({ watch: watched({ failed_batches: 1 }) }), true)).toMatchObject({
        kind: 'watched',
        unfinished: true,
        failed: true,
      });
      expect(decideEnding(ended({ watch: watched({ not_read: 1 }) }), true)).toMatchObject({
        kind: 'watched',
        unfinished: true,
        failed: true,
      });
    },
  );

  it("a pass ends with its own outcome: ok passes, failed and a real run's not_examined fail", () => {
    expect(decideEnding(ended({}), false)).toEqual({ kind: 'pass', result: result('ok'), failed: false });
    expect(decideEnding(ended({ result: result('not_examined') }), false)).toMatchObject({
      kind: 'pass',
      failed: true,
    });
    expect(decideEnding(ended({ result: dry('not_examined') }), false)).toMatchObject({ kind: 'pass', failed: false });
    expect(decideEnding(ended({ result: dry('failed') }), false)).toMatchObject({ kind: 'pass', failed: true });
  });
});

describe('passFailed', () => {
  it('only failed batches, or a real run that did not call sync-complete, fail the command', () => {
    expect([
      passFailed(result('ok')),
      passFailed(result('failed')),
      passFailed(result('not_examined')),
      passFailed(dry('not_examined')),
    ]).toEqual([false, true, true, false]);
  });
});

describe('startFailure', () => {
  it(
    'Ctrl-C before the pass ended says how to resume; the outage stop says nothing was sent; other errors pass ' +
      'unchanged',
    () => {
      const cut = new InterruptedError('scan interrupted');
      const interrupted = startFailure(cut, null);
      expect(interrupted).toBeInstanceOf(InterruptedError);
      expect(interrupted).toMatchObject({ message: INTERRUPTED, cause: cut });
      const outage = startFailure(cut, 'the service refused the key (401 invalid_api_key)');
      expect(outage).toBeInstanceOf(OutageError);
      expect(outage).toMatchObject({
        message:
          'the service refused the key (401 invalid_api_key); nothing was sent: run the same command again when the ' +
          'host is back',
      });
      const other = new Error('disk full');
      expect(startFailure(other, 'gone')).toBe(other);
    },
  );
});
