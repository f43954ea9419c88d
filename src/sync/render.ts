import type { Event, Stats } from '../contract/index.js';
import { totalRejected, type SyncCounts } from './summary.js';
import type { DryRunResult, SyncResult } from './run.js';

/** The end-of-sync summary lines (human form). */
export function renderCounts(counts: SyncCounts, dryRun: boolean): string[] {
  const r = counts.rejected;
  const lines = [
    `files:                 ${counts.files} (${counts.media} readable, ${counts.scan_errors} unreadable, ${counts.duplicates} duplicates)`,
  ];
  if (dryRun) {
    lines.push(
      `would send:            ${counts.sent}`,
      `would be accepted:     ${counts.accepted}`,
      `would be rejected:     ${totalRejected(counts)} (missing coordinates ${r.missing_coordinates}, missing taken_at ${r.missing_taken_at}, invalid ${r.invalid})`,
    );
    return lines;
  }
  lines.push(
    `skipped (already sent): ${counts.skipped_already_sent}`,
    `sent:                  ${counts.sent} in ${counts.batches} batches`,
    `accepted:              ${counts.accepted}`,
    `rejected:              ${totalRejected(counts)} (missing coordinates ${r.missing_coordinates}, missing taken_at ${r.missing_taken_at}, invalid ${r.invalid})`,
    `matched:               ${counts.matched}${counts.unlicensed ? ` (${counts.unlicensed} more at venues whose events cannot be shown)` : ''}`,
    `failed batches:        ${counts.failed_batches}${counts.pending ? ` (${counts.pending} items pending, sent again next run)` : ''}`,
  );
  return lines;
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
    `events:            ${stats.total_events} (${stats.concerts_count} concerts, ${stats.sports_count} sports)`,
    `venues:            ${stats.total_venues}`,
    `first attended:    ${v(stats.first_attended)}`,
    `most recent:       ${v(stats.most_recently_attended)}`,
    `busiest year:      ${v(stats.busiest_year)}`,
    `top season:        ${v(stats.top_season)}`,
    `top artist:        ${v(stats.top_artist)}   top genre: ${v(stats.top_genre)}`,
    `top team:          ${v(stats.top_team)}   top league: ${v(stats.top_league)}`,
    `has synced:        ${stats.has_synced ? 'yes' : 'no'}   last sync: ${v(stats.last_sync_at)}`,
  ];
}

/** The whole human report printed on stdout at the end of a sync. */
export function renderResult(result: SyncResult | DryRunResult): string {
  if (result.dry_run) return [`dry run: nothing was sent`, ...renderCounts(result, true)].join('\n') + '\n';
  const out = [`user ${result.user_id} (${result.pass} pass, ${result.target.kind} ${result.target.base_url})`, ...renderCounts(result, false)];
  out.push('', `events (${result.events.length}, newest first):`, ...renderEventsTable(result.events));
  if (result.stats) out.push('', 'stats:', ...renderStats(result.stats));
  return `${out.join('\n')}\n`;
}
