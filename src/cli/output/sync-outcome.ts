import type { CliContext } from '../context.js';
import { EXIT_FAILURE } from '../exit.js';
import { emit, jsonLine } from './emit.js';
import { terminalWidth } from '../format/width.js';
import {
  failedBatchesHint,
  renderCounts,
  renderResult,
  renderWatchTotals,
  resultDocument,
  unusableFilesHint,
  watchProblemsHint,
} from './sync-result.js';
import { decideEnding, passFailed } from '../../sync/ending.js';
import type { DryRunResult, SyncEnded, SyncResult, WatchTotals } from '../../sync/session.js';

/** What the ending needs of sync's flags. */
export interface OutcomeFlags {
  json: boolean;
  quiet: boolean;
  events: boolean;
  report?: string;
}

/**
 * What the log file gets when a pass (`--watch`) or the sync ends: the outcome, then the counts or the watch's totals.
 */
export function outcomeLogLines(
  what: 'pass' | 'sync',
  ended: Pick<SyncEnded, 'result' | 'watch'>,
  elapsedMs?: number,
): string[] {
  if (ended.watch !== null) return [`camroll: ${renderWatchTotals(ended.watch)}`];
  return [
    `camroll: ${what} ended: outcome ${ended.result.outcome}`,
    ...renderCounts(ended.result, { dryRun: ended.result.dry_run, elapsedMs }),
  ];
}

/**
 * A pass's human summary on stdout (unless `print` is false: --json prints later), its hints
 * on stderr, and the exit code it implies.
 */
export function showResult(
  ctx: CliContext,
  flags: OutcomeFlags,
  result: SyncResult | DryRunResult,
  print: boolean,
  elapsedMs?: number,
): void {
  if (print)
    ctx.stdout.write(
      renderResult(result, { history: flags.events && !flags.quiet, elapsedMs, width: terminalWidth(ctx.stdout) }),
    );
  const unusable = unusableFilesHint(result);
  if (unusable !== null && !flags.report && !flags.quiet) emit(ctx.stderr, `camroll: ${unusable}\n`);
  if (result.outcome === 'not_examined' && !result.dry_run) {
    emit(
      ctx.stderr,
      `camroll: sync-complete was not called: ${result.not_examined ?? 'the library was not read whole'}; nothing is lost: fix it and run sync again\n`,
    );
  }
  if (result.outcome === 'failed') {
    emit(ctx.stderr, `camroll: ${failedBatchesHint(result)}\n`);
  }
  if (passFailed(result)) ctx.exitCode = EXIT_FAILURE;
}

/**
 * How a sync ends (decideEnding), summary first on every path: the host gone (exit 1),
 * Ctrl-C (130), a watch stopped by the user (its normal end), or the pass's own outcome.
 */
export function showOutcome(ctx: CliContext, flags: OutcomeFlags, ended: SyncEnded & { elapsedMs: number }): void {
  const { elapsedMs } = ended;
  const document = (value: SyncResult | DryRunResult, watch: WatchTotals | null): object => {
    const doc = resultDocument(value, elapsedMs);
    return watch === null ? doc : { ...doc, watch };
  };
  const ending = decideEnding(ended, ctx.signal.aborted);
  switch (ending.kind) {
    case 'outage':
      // The summary is printed as on success; the pending items are sent by the next run.
      if (flags.json) ctx.stdout.write(jsonLine(document(ending.result, ending.watch)));
      else
        ctx.stdout.write(
          ending.watch === null
            ? renderResult(ending.result, { history: false, elapsedMs, width: terminalWidth(ctx.stdout) })
            : `${renderWatchTotals(ending.watch)}\n`,
        );
      throw ending.error;
    case 'interrupted':
      // The counts so far, where the result goes: a script reading --json gets its document.
      ctx.stdout.write(
        flags.json
          ? jsonLine(document(ending.result, null))
          : renderResult(ending.result, { history: false, elapsedMs, width: terminalWidth(ctx.stdout) }),
      );
      throw ending.error;
    case 'watched': {
      // The pass's summary and hints were shown when it ended.
      const { watch } = ending;
      ctx.stdout.write(flags.json ? jsonLine(document(ending.result, watch)) : `${renderWatchTotals(watch)}\n`);
      if (ending.unfinished) {
        emit(ctx.stderr, `camroll: ${watchProblemsHint(watch)}\n`);
      }
      if (ending.failed) ctx.exitCode = EXIT_FAILURE;
      return;
    }
    case 'pass':
      if (flags.json) ctx.stdout.write(jsonLine(document(ending.result, null)));
      showResult(ctx, flags, ending.result, !flags.json, elapsedMs);
  }
}
