import type { Stats } from '../../contract/index.js';
import { countPerYear, renderBarChart } from './bar-chart.js';

const TOP_VENUES = 5;

/**
 * A readable stats summary, and a per-year bar chart from the years of the user's events
 * (the local start year at the venue).
 */
export function renderStats(stats: Stats, eventYears: number[]): string {
  const rows: [string, string][] = [
    ['Events', `${stats.total_events} (${stats.concerts_count} concerts, ${stats.sports_count} sports)`],
    ['Venues', String(stats.total_venues)],
    ['First attended', stats.first_attended ?? '-'],
    ['Most recent', stats.most_recently_attended ?? '-'],
    ['Busiest year', stats.busiest_year ?? '-'],
    ['Top season', stats.top_season ?? '-'],
    ['Top artist', stats.top_artist ?? '-'],
    ['Top genre', stats.top_genre ?? '-'],
    ['Top team', stats.top_team ?? '-'],
    ['Top league', stats.top_league ?? '-'],
    ['Library synced', stats.has_synced ? 'yes' : 'not yet'],
    ['Last sync', stats.last_sync_at ?? '-'],
  ];
  const labelWidth = Math.max(...rows.map(([label]) => label.length));
  let out = rows.map(([label, value]) => `${label.padEnd(labelWidth)}  ${value}`).join('\n') + '\n';

  const venues = [...stats.unique_venues].sort((a, b) => b.visit_count - a.visit_count).slice(0, TOP_VENUES);
  if (venues.length > 0) {
    out += '\nVenues most visited\n';
    for (const { venue, visit_count } of venues) {
      const place = [venue.city, venue.country].filter(Boolean).join(', ');
      out += `  ${visit_count}×  ${venue.name}${place ? ` (${place})` : ''}\n`;
    }
  }
  const bars = countPerYear(eventYears);
  if (bars.length > 0) out += `\nEvents per year\n${renderBarChart(bars)}`;
  return out;
}

/** The local year of an event's start (`starts_at_local` is never converted). */
export function eventYear(startsAtLocal: string): number {
  return Number(startsAtLocal.slice(0, 4));
}
