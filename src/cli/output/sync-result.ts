import { isLocalService } from '../../rules/base-url.js';
import { totalRejected, type SyncCounts } from '../../sync/summary.js';
import type { DryRunResult, SyncResult, WatchTotals } from '../../sync/session.js';
import { renderEventsTable } from '../format/events.js';
import { formatSeconds } from '../../util/seconds.js';
import { eventYear, renderStats } from '../format/stats.js';
import { closedArchives, plural, reasonTotal, unusableFiles } from '../format/vocabulary.js';
import { hangingLines } from '../format/width.js';
import { formatLeftOut } from '../format/origin.js';

/**
 * One summary line: labels padded so the values line up; on a terminal narrower than the line,
 * the value wraps at words under its own start (never mid-word at the terminal's edge).
 */
const wrappedRow = (label: string, value: string | number, width: number | null = null): string =>
  hangingLines(`${label}:`.padEnd(24), String(value), width);

/** The service's rejection reasons, in the contract's order (scan's summary spells them the same). */
const REASONS = ['missing_coordinates', 'missing_taken_at', 'invalid'] as const;

export interface CountsView {
  dryRun: boolean;
  /** Wall-clock time of the run, shown last. */
  elapsedMs?: number;
  /** The terminal's width (src/cli/format/width.ts): long values wrap at words within it; null or absent: one line each. */
  width?: number | null;
}

/** The end-of-sync summary lines (human form). */
export function renderCounts(counts: SyncCounts, view: CountsView): string[] {
  const rejected = reasonTotal(counts.rejected, REASONS);
  const width = view.width ?? null;
  const row = (label: string, value: string | number): string => wrappedRow(label, value, width);
  const lines = [
    row(
      'files',
      `${counts.files} (${counts.media} with metadata, ${counts.unreadable} unreadable, ${counts.damaged} damaged, ` +
        `${plural(counts.duplicates, 'duplicate')})`,
    ),
  ];
  // What was not sent for its origin, or collapsed into its pair (none: no line, as before).
  const left = formatLeftOut(counts.left_out, false);
  const collapsed = formatLeftOut(counts.left_out, true);
  if (left !== '')
    lines.push(row(view.dryRun ? 'would leave out' : 'left out', `${left} (--include CLASS sends them)`));
  if (collapsed !== '') lines.push(row('collapsed', `${collapsed} (one item per moment)`));
  if (view.dryRun) {
    lines.push(
      row('would send', counts.sent),
      row('would be accepted', counts.accepted),
      row('would be rejected', rejected),
    );
  } else {
    lines.push(
      row('skipped (already sent)', counts.skipped_already_sent),
      row('sent', `${counts.sent} in ${plural(counts.batches, 'batch', 'batches')}`),
      row('accepted', counts.accepted),
      row('rejected', rejected),
      row(
        'matched',
        `${counts.matched}${counts.unlicensed ? ` (${counts.unlicensed} more at venues whose events cannot be shown)` : ''}`,
      ),
      row('failed batches', counts.failed_batches),
    );
    if (counts.pending > 0)
      lines.push(
        row('pending', `${plural(counts.pending, 'item')} sent but not answered (sent again by the next run)`),
      );
  }
  if (view.elapsedMs !== undefined) lines.push(row('elapsed', formatSeconds(view.elapsedMs)));
  return lines;
}

/** Why sync-complete was or was not called, in words. */
export function syncCompleteLine(result: SyncResult, width: number | null = null): string {
  if (result.sync_complete) {
    // A file that could not be read at all holds sync-complete back: the files here were
    // read, and their content is damaged.
    const damaged = result.damaged;
    const one = damaged === 1;
    const note =
      damaged === 0
        ? ''
        : `; ${plural(damaged, 'file')} ${one ? 'was' : 'were'} read but ${one ? 'is' : 'are'} damaged`;
    return wrappedRow('sync-complete', `called (the whole library was examined${note})`, width);
  }
  const why: Record<SyncResult['outcome'], string> = {
    ok: 'not called',
    failed: 'not called: some batches failed after retries',
    interrupted: 'not called: the sync was interrupted',
    outage: 'not called: the host went away',
    not_examined: `not called: ${result.not_examined ?? 'the library was not read whole'}`,
  };
  return wrappedRow('sync-complete', why[result.outcome], width);
}

const stay = (n: number): string => (n === 1 ? 'stays' : 'stay');

/** The stderr hint after a pass that met files it could not use (without --report); null when there were none. */
export function unusableFilesHint(result: Pick<SyncCounts, 'unreadable' | 'damaged'>): string | null {
  const what = unusableFiles(result.unreadable, result.damaged);
  return what === null ? null : `${what}; --report FILE lists them with the reason`;
}

/** The stderr line after a pass whose batches failed after retries. */
export function failedBatchesHint(result: Pick<SyncCounts, 'failed_batches' | 'pending'>): string {
  const its = result.failed_batches === 1 ? 'its' : 'their';
  const pending = `${plural(result.pending, 'item')} ${stay(result.pending)} pending`;
  return `${plural(result.failed_batches, 'batch', 'batches')} failed after retries; ${its} ${pending}: run sync again`;
}

/** The stderr line after a watch that met failures, pending items or unreadable files. */
export function watchProblemsHint(totals: WatchTotals): string {
  return (
    `while watching, ${plural(totals.failed_batches, 'batch', 'batches')} failed, ` +
    `${plural(totals.pending, 'item')} ${stay(totals.pending)} pending ` +
    `and ${plural(totals.not_read, 'file')} could not be read: run sync again`
  );
}

/** What `--watch` sent after the pass, in one line. */
export function renderWatchTotals(totals: WatchTotals): string {
  const pending = totals.pending > 0 ? ` (${plural(totals.pending, 'item')} pending)` : '';
  return (
    `watch: ${plural(totals.changes, 'batch', 'batches')} of changes: ${plural(totals.files, 'file')}, sent ${totals.sent}, ` +
    `accepted ${totals.accepted}, matched ${totals.matched}, rejected ${totalRejected(totals)}, already sent ` +
    `${totals.skipped_already_sent}, ` +
    `failed batches ${totals.failed_batches}${pending}${closedArchives(totals.archives_not_opened)}`
  );
}

export interface ResultView {
  /** Print the events table and the stats (default true; `--no-events` and `--quiet` leave them out). */
  history?: boolean;
  elapsedMs?: number;
  /** The terminal's width: long values wrap at words within it (null or absent: a pipe, one line each). */
  width?: number | null;
}

/**
 * The whole human report printed on stdout at the end of a sync: the counts, then the events
 * table of `camroll events` and the stats view of `camroll stats` (the same renderers).
 */
export function renderResult(result: SyncResult | DryRunResult, view: ResultView = {}): string {
  const width = view.width ?? null;
  const counts = {
    dryRun: result.dry_run,
    width,
    ...(view.elapsedMs === undefined ? {} : { elapsedMs: view.elapsedMs }),
  };
  if (result.dry_run) {
    const plan = result.plan;
    const planned = plan
      ? [
          wrappedRow('already answered', `${plan.already_answered} (skipped, as a real run would)`, width),
          wrappedRow(
            'to send',
            `${plan.new + plan.changed + plan.pending} (new ${plan.new}, changed ${plan.changed}, pending ` +
              `${plan.pending})`,
            width,
          ),
        ]
      : [];
    // What the real run would decide at the end: said here, since a dry run never calls it.
    const completing =
      result.not_examined === undefined
        ? []
        : [wrappedRow('sync-complete', `a real run would not call it: ${result.not_examined}`, width)];
    return [`dry run: nothing was sent`, ...renderCounts(result, counts), ...planned, ...completing].join('\n') + '\n';
  }
  // The embedded service listens on a new port every run: its URL would mean nothing here.
  const where = result.target.kind === 'embedded' ? 'the embedded local service' : result.target.base_url;
  // A profile this run created is said here too: with --quiet, the notice on stderr is not printed.
  const profile =
    result.target.kind === 'embedded'
      ? 'in the embedded local service'
      : isLocalService({ kind: result.target.kind, baseUrl: result.target.base_url })
        ? 'in the service on this machine'
        : 'a real profile on the service';
  const created = result.user_created ? [wrappedRow('profile', `created by this run (${profile})`, width)] : [];
  const head = [hangingLines('user ', `${result.user_id} (${result.pass} pass, ${where})`, width), ...created];
  let out = `${[...head, ...renderCounts(result, counts), syncCompleteLine(result, width)].join('\n')}\n`;
  if (view.history !== false) {
    out += `\nEvents (${result.events.length}, newest first)\n`;
    out += result.events.length === 0 ? 'No matched events.\n' : renderEventsTable(result.events, width);
    if (result.stats)
      out += `\n${renderStats(
        result.stats,
        result.events.map((e) => eventYear(e.starts_at_local)),
      )}`;
  }
  return out;
}

/** The `--json` document: the result with the elapsed time beside the counts (before the long lists). */
export function resultDocument(result: SyncResult | DryRunResult, elapsedMs: number): Record<string, unknown> {
  if (result.dry_run) return { ...result, elapsed_ms: elapsedMs };
  const { events, stats, ...rest } = result;
  return { ...rest, elapsed_ms: elapsedMs, events, stats };
}
