import type { Event, Stats } from '../../contract/index.js';
import { totalRejected, type SyncCounts } from '../../sync/summary.js';
import type { DryRunResult, SyncResult } from '../../sync/run.js';
import type { WatchTotals } from '../sync-watch.js';

/** One summary line: labels padded so the values line up. */
const row = (label: string, value: string | number): string => `${`${label}:`.padEnd(24)}${value}`;
const plural = (n: number, one: string, many = `${one}s`): string => `${n} ${n === 1 ? one : many}`;

/** The end-of-sync summary lines (human form). */
export function renderCounts(counts: SyncCounts, dryRun: boolean): string[] {
  const r = counts.rejected;
  const reasons = `missing coordinates ${r.missing_coordinates}, missing taken_at ${r.missing_taken_at}, invalid ${r.invalid}`;
  const lines = [
    row('files', `${counts.files} (${counts.media} readable, ${counts.scan_errors} unreadable, ${plural(counts.duplicates, 'duplicate')})`),
  ];
  if (dryRun) {
    lines.push(
      row('would send', counts.sent),
      row('would be accepted', counts.accepted),
      row('would be rejected', `${totalRejected(counts)} (${reasons})`),
    );
    return lines;
  }
  lines.push(
    row('skipped (already sent)', counts.skipped_already_sent),
    row('sent', `${counts.sent} in ${plural(counts.batches, 'batch', 'batches')}`),
    row('accepted', counts.accepted),
    row('rejected', `${totalRejected(counts)} (${reasons})`),
    row('matched', `${counts.matched}${counts.unlicensed ? ` (${counts.unlicensed} more at venues whose events cannot be shown)` : ''}`),
    row('failed batches', counts.failed_batches),
  );
  if (counts.pending > 0) lines.push(row('pending', `${counts.pending} items sent but not answered (sent again by the next run)`));
  return lines;
}

/** Why sync-complete was or was not called, in words. */
export function syncCompleteLine(result: SyncResult): string {
  if (result.sync_complete) return row('sync-complete', 'called (the whole library was examined)');
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

const pad = (s: string, n: number): string => (s.length >= n ? s : s + ' '.repeat(n - s.length));

/** Events as a table, in the order given (the service's: newest first). */
export function renderEventsTable(events: readonly Event[]): string[] {
  if (events.length === 0) return ['no matched events'];
  const rows = events.map((e) => [
    e.starts_at_local.slice(0, 16).replace('T', ' '),
    e.name,
    [e.venue?.name, e.venue?.city, e.venue?.country].filter(Boolean).join(', '),
    String(e.media_count ?? ''),
    String(e.id),
  ]);
  const header = ['date (local)', 'event', 'venue', 'media', 'id'];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]): string => cells.map((c, i) => pad(c, widths[i]!)).join('  ').trimEnd();
  return [line(header), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)];
}

/** The stats as readable lines. */
export function renderStats(stats: Stats): string[] {
  const v = (x: string | number | null): string => (x === null ? '-' : String(x));
  return [
    row('events', `${stats.total_events} (${stats.concerts_count} concerts, ${stats.sports_count} sports)`),
    row('venues', stats.total_venues),
    row('first attended', v(stats.first_attended)),
    row('most recent', v(stats.most_recently_attended)),
    row('busiest year', v(stats.busiest_year)),
    row('top season', v(stats.top_season)),
    row('top artist', `${v(stats.top_artist)}   top genre: ${v(stats.top_genre)}`),
    row('top team', `${v(stats.top_team)}   top league: ${v(stats.top_league)}`),
    row('has synced', `${stats.has_synced ? 'yes' : 'no'}   last sync: ${v(stats.last_sync_at)}`),
  ];
}

/** The whole human report printed on stdout at the end of a sync. */
export function renderResult(result: SyncResult | DryRunResult, options: { history?: boolean } = {}): string {
  if (result.dry_run) {
    const plan = result.plan;
    const planned = plan
      ? [
          row('already answered', `${plan.already_answered} (skipped, as a real run would)`),
          row('to send', `${plan.new + plan.changed + plan.pending} (new ${plan.new}, changed ${plan.changed}, pending ${plan.pending})`),
        ]
      : [];
    return [`dry run: nothing was sent`, ...renderCounts(result, true), ...planned].join('\n') + '\n';
  }
  // The embedded service listens on a new port every run: its URL would mean nothing here.
  const where = result.target.kind === 'embedded' ? 'the embedded local service' : result.target.base_url;
  const out = [`user ${result.user_id} (${result.pass} pass, ${where})`, ...renderCounts(result, false), syncCompleteLine(result)];
  if (options.history !== false) {
    out.push('', `events (${result.events.length}, newest first):`, ...renderEventsTable(result.events));
    if (result.stats) out.push('', 'stats:', ...renderStats(result.stats));
  }
  return `${out.join('\n')}\n`;
}
