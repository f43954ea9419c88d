import { totalRejected, type SyncCounts } from '../../sync/summary.js';
import type { DryRunResult, SyncResult, WatchTotals } from '../../sync/session.js';
import { renderEventsTable } from '../format/events.js';
import { eventYear, renderStats } from '../format/stats.js';

/** One summary line: labels padded so the values line up. */
const row = (label: string, value: string | number): string => `${`${label}:`.padEnd(24)}${value}`;
const plural = (n: number, one: string, many = `${one}s`): string => `${n} ${n === 1 ? one : many}`;

/** `12.3 s`, as scan's summary shows it. */
export function formatElapsed(elapsedMs: number): string {
  return `${(elapsedMs / 1000).toFixed(1)} s`;
}

export interface CountsView {
  dryRun: boolean;
  /** Wall-clock time of the run, shown last. */
  elapsedMs?: number;
}

/** The end-of-sync summary lines (human form). */
export function renderCounts(counts: SyncCounts, view: CountsView): string[] {
  const r = counts.rejected;
  const reasons = `missing coordinates ${r.missing_coordinates}, missing taken_at ${r.missing_taken_at}, invalid ${r.invalid}`;
  const lines = [
    row('files', `${counts.files} (${counts.media} readable, ${counts.scan_errors} unreadable, ${plural(counts.duplicates, 'duplicate')})`),
  ];
  if (view.dryRun) {
    lines.push(
      row('would send', counts.sent),
      row('would be accepted', counts.accepted),
      row('would be rejected', `${totalRejected(counts)} (${reasons})`),
    );
  } else {
    lines.push(
      row('skipped (already sent)', counts.skipped_already_sent),
      row('sent', `${counts.sent} in ${plural(counts.batches, 'batch', 'batches')}`),
      row('accepted', counts.accepted),
      row('rejected', `${totalRejected(counts)} (${reasons})`),
      row('matched', `${counts.matched}${counts.unlicensed ? ` (${counts.unlicensed} more at venues whose events cannot be shown)` : ''}`),
      row('failed batches', counts.failed_batches),
    );
    if (counts.pending > 0) lines.push(row('pending', `${counts.pending} items sent but not answered (sent again by the next run)`));
  }
  if (view.elapsedMs !== undefined) lines.push(row('elapsed', formatElapsed(view.elapsedMs)));
  return lines;
}

/** Why sync-complete was or was not called, in words. */
export function syncCompleteLine(result: SyncResult): string {
  if (result.sync_complete) {
    // Files counted as unreadable here were read: their bytes, not their metadata (scan's
    // errors). A file that could not be read at all would have held sync-complete back.
    const corrupt = result.scan_errors === 0 ? '' : `; ${plural(result.scan_errors, 'file')} with errors ${result.scan_errors === 1 ? 'was' : 'were'} read, ${result.scan_errors === 1 ? 'its' : 'their'} metadata could not be`;
    return row('sync-complete', `called (the whole library was examined${corrupt})`);
  }
  const why: Record<SyncResult['outcome'], string> = {
    ok: 'not called',
    failed: 'not called: some batches failed after retries',
    interrupted: 'not called: the sync was interrupted',
    outage: 'not called: the host went away',
    not_examined: `not called: ${result.not_examined ?? 'the library was not read whole'}`,
  };
  return row('sync-complete', why[result.outcome]);
}

/** What `--watch` sent after the pass, in one line. */
export function renderWatchTotals(totals: WatchTotals): string {
  const pending = totals.pending > 0 ? ` (${plural(totals.pending, 'item')} pending)` : '';
  return (
    `watch: ${totals.changes} ${totals.changes === 1 ? 'batch' : 'batches'} of changes: ${totals.files} files, sent ${totals.sent}, ` +
    `accepted ${totals.accepted}, matched ${totals.matched}, rejected ${totalRejected(totals)}, already sent ${totals.skipped_already_sent}, ` +
    `failed batches ${totals.failed_batches}${pending}`
  );
}

export interface ResultView {
  /** Print the events table and the stats (default true; `--no-events` and `--quiet` leave them out). */
  history?: boolean;
  elapsedMs?: number;
}

/**
 * The whole human report printed on stdout at the end of a sync: the counts, then the events
 * table of `camroll events` and the stats view of `camroll stats` (the same renderers).
 */
export function renderResult(result: SyncResult | DryRunResult, view: ResultView = {}): string {
  const counts = { dryRun: result.dry_run, ...(view.elapsedMs === undefined ? {} : { elapsedMs: view.elapsedMs }) };
  if (result.dry_run) {
    const plan = result.plan;
    const planned = plan
      ? [
          row('already answered', `${plan.already_answered} (skipped, as a real run would)`),
          row('to send', `${plan.new + plan.changed + plan.pending} (new ${plan.new}, changed ${plan.changed}, pending ${plan.pending})`),
        ]
      : [];
    return [`dry run: nothing was sent`, ...renderCounts(result, counts), ...planned].join('\n') + '\n';
  }
  // The embedded service listens on a new port every run: its URL would mean nothing here.
  const where = result.target.kind === 'embedded' ? 'the embedded local service' : result.target.base_url;
  let out = `${[`user ${result.user_id} (${result.pass} pass, ${where})`, ...renderCounts(result, counts), syncCompleteLine(result)].join('\n')}\n`;
  if (view.history !== false) {
    out += `\nEvents (${result.events.length}, newest first)\n`;
    out += result.events.length === 0 ? 'No matched events.\n' : renderEventsTable(result.events);
    if (result.stats) out += `\n${renderStats(result.stats, result.events.map((e) => eventYear(e.starts_at_local)))}`;
  }
  return out;
}

/** The `--json` document: the result with the elapsed time beside the counts (before the long lists). */
export function resultDocument(result: SyncResult | DryRunResult, elapsedMs: number): Record<string, unknown> {
  if (result.dry_run) return { ...result, elapsed_ms: elapsedMs };
  const { events, stats, ...rest } = result;
  return { ...rest, elapsed_ms: elapsedMs, events, stats };
}
