import { plural } from '../util/plural.js';
import { InterruptedError, OutageError } from '../errors.js';
import type { DryRunResult } from './dry-run.js';
import type { WatchTotals } from './follow.js';
import type { SyncResult } from './run.js';

/** Said when Ctrl-C stopped a sync. */
export const INTERRUPTED = 'sync interrupted; the journal is consistent: run the same command again to resume';

/** What a sync returned: its pass's result, what `--watch` sent after it, and why the host was given up on. */
export interface SyncEnded {
  result: SyncResult | DryRunResult;
  watch: WatchTotals | null;
  /** Set when the outage stop ended the sync (the host went away, or a failure waiting cannot heal). */
  outageReason: string | null;
}

/**
 * How a sync ends, summary first on every path: the host gone (`outage`, exit 1), Ctrl-C
 * (`interrupted`, 130), a watch stopped by the user (`watched`, its normal end) or the pass's
 * own outcome (`pass`). `failed` says whether the exit code is 1.
 */
export type SyncEnding =
  | { kind: 'outage'; result: SyncResult | DryRunResult; watch: WatchTotals | null; error: OutageError }
  | { kind: 'interrupted'; result: SyncResult | DryRunResult; error: InterruptedError }
  | { kind: 'watched'; result: SyncResult | DryRunResult; watch: WatchTotals; unfinished: boolean; failed: boolean }
  | { kind: 'pass'; result: SyncResult | DryRunResult; failed: boolean };

/** Whether a pass's outcome fails the command: sync-complete not called in a real run, or batches that failed. */
export function passFailed(result: SyncResult | DryRunResult): boolean {
  return (result.outcome === 'not_examined' && !result.dry_run) || result.outcome === 'failed';
}

/** Decides how a sync ends; `userStopped` is whether Ctrl-C (not the outage stop) aborted it. Pure. */
export function decideEnding(ended: SyncEnded, userStopped: boolean): SyncEnding {
  const { result, watch, outageReason } = ended;
  if (outageReason !== null && !userStopped && (result.outcome === 'interrupted' || watch !== null)) {
    // The summary is printed as on success; the pending items are sent by the next run.
    const pending = result.pending + (watch?.pending ?? 0);
    const error = new OutageError(
      `sync stopped: ${outageReason}; ${plural(pending, 'item')} ${pending === 1 ? 'stays' : 'stay'} pending and the ` +
        'journal is consistent: ' +
        'run the same command again to resume',
    );
    return { kind: 'outage', result: { ...result, outcome: 'outage' }, watch, error };
  }
  if (result.outcome === 'interrupted') {
    return { kind: 'interrupted', result, error: new InterruptedError(INTERRUPTED) };
  }
  if (watch !== null) {
    // A watch ends when the user stops it: its normal end (exit 0 when everything was answered).
    // Items cut off by Ctrl-C are the user's choice; a failure or an unread file is not.
    const failed = watch.failed_batches > 0 || watch.not_read > 0;
    return { kind: 'watched', result, watch, unfinished: failed || watch.pending > 0, failed };
  }
  return { kind: 'pass', result, failed: passFailed(result) };
}

/**
 * The error a sync that never reached its pass's end is reported with: Ctrl-C, or the
 * outage stop during start-up or the scan (nothing was sent). Other errors pass unchanged.
 */
export function startFailure(error: unknown, outageReason: string | null): unknown {
  if (!(error instanceof InterruptedError)) return error;
  if (outageReason === null) return new InterruptedError(INTERRUPTED, { cause: error });
  const message = `${outageReason}; nothing was sent: run the same command again when the host is back`;
  return new OutageError(message, { cause: error });
}
