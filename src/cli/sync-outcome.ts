import type { CliContext } from './context.js';
import { jsonLine } from './connection-args.js';
import { EXIT_FAILURE } from './exit.js';
import { failedBatchesHint, renderResult, renderWatchTotals, resultDocument, unusableFilesHint, watchProblemsHint } from './output/sync-result.js';
import type { WatchTotals } from './sync-watch.js';
import { InterruptedError, OutageError } from '../errors.js';
import type { DryRunResult, SyncResult } from '../sync/run.js';

/** What the ending needs of sync's flags. */
export interface OutcomeFlags {
  json: boolean;
  quiet: boolean;
  events: boolean;
  report?: string;
}

/** Said when Ctrl-C stopped a sync. */
export const INTERRUPTED = 'sync interrupted; the journal is consistent: run the same command again to resume';

/**
 * A pass's human summary on stdout (unless `print` is false: --json prints later), its hints
 * on stderr, and the exit code it implies.
 */
export function showResult(ctx: CliContext, flags: OutcomeFlags, result: SyncResult | DryRunResult, print: boolean, elapsedMs?: number): void {
  if (print) ctx.stdout.write(renderResult(result, { history: flags.events && !flags.quiet, elapsedMs }));
  const unusable = unusableFilesHint(result);
  if (unusable !== null && !flags.report && !flags.quiet) ctx.stderr.write(`camroll: ${unusable}\n`);
  if (result.outcome === 'not_examined' && !result.dry_run) {
    ctx.stderr.write(`camroll: sync-complete was not called: ${result.not_examined ?? 'the library was not read whole'}; nothing is lost: fix it and run sync again\n`);
    ctx.exitCode = EXIT_FAILURE;
  }
  if (result.outcome === 'failed') {
    ctx.stderr.write(`camroll: ${failedBatchesHint(result)}\n`);
    ctx.exitCode = EXIT_FAILURE;
  }
}

/**
 * How a sync ends, summary first on every path: the host gone (exit 1), Ctrl-C (130), a watch
 * stopped by the user (its normal end), or the pass's own outcome.
 */
export function showOutcome(
  ctx: CliContext,
  flags: OutcomeFlags,
  ended: { result: SyncResult | DryRunResult; watch: WatchTotals | null; outageReason: string | null; elapsedMs: number },
): void {
  const { result, watch: watchTotals, outageReason, elapsedMs } = ended;
  const document = (value: SyncResult | DryRunResult): object => {
    const doc = resultDocument(value, elapsedMs);
    return watchTotals === null ? doc : { ...doc, watch: watchTotals };
  };

  if (outageReason !== null && !ctx.signal.aborted && (result.outcome === 'interrupted' || watchTotals !== null)) {
    // The summary is printed as on success; the pending items are sent by the next run.
    const stopped: SyncResult | DryRunResult = { ...result, outcome: 'outage' };
    const pending = result.pending + (watchTotals?.pending ?? 0);
    if (flags.json) ctx.stdout.write(jsonLine(document(stopped)));
    else ctx.stdout.write(watchTotals === null ? renderResult(stopped, { history: false, elapsedMs }) : `${renderWatchTotals(watchTotals)}\n`);
    throw new OutageError(
      `sync stopped: ${outageReason}; ${pending} items stay pending and the journal is consistent: run the same command again to resume`,
    );
  }
  if (result.outcome === 'interrupted') {
    // The counts so far, where the result goes: a script reading --json gets its document.
    ctx.stdout.write(flags.json ? jsonLine(document(result)) : renderResult(result, { history: false, elapsedMs }));
    throw new InterruptedError(INTERRUPTED);
  }
  if (watchTotals !== null) {
    // A watch ends when the user stops it: its normal end (exit 0 when everything was answered).
    // The pass's summary and hints were shown when it ended.
    ctx.stdout.write(flags.json ? jsonLine(document(result)) : `${renderWatchTotals(watchTotals)}\n`);
    if (watchTotals.failed_batches > 0 || watchTotals.unreadable > 0 || watchTotals.pending > 0) {
      ctx.stderr.write(`camroll: ${watchProblemsHint(watchTotals)}\n`);
      // Items cut off by Ctrl-C are the user's choice; a failure or an unread file is not.
      if (watchTotals.failed_batches > 0 || watchTotals.unreadable > 0) ctx.exitCode = EXIT_FAILURE;
    }
  } else {
    if (flags.json) ctx.stdout.write(jsonLine(document(result)));
    showResult(ctx, flags, result, !flags.json, elapsedMs);
  }
}
