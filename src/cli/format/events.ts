import type { Event } from '../../contract/index.js';
import { renderTable, type Column } from './table.js';

/** The date and time of an event as the venue's clock showed it (never converted). */
export function localWhen(event: Event): string {
  return event.starts_at_local.slice(0, 16).replace('T', ' ');
}

/** How many media an event holds: the count the service gave, or the media it listed. */
export function mediaCount(event: Event): string {
  const count = event.media_count ?? event.media?.length;
  return count === undefined || count === null ? '-' : String(count);
}

const columns: Column<Event>[] = [
  { header: 'DATE', value: localWhen },
  { header: 'EVENT', value: (e) => e.name, maxWidth: 40, fit: 'truncate', minWidth: 16 },
  { header: 'VENUE', value: (e) => e.venue?.name ?? '-', maxWidth: 32, fit: 'truncate', minWidth: 12 },
  { header: 'CITY', value: (e) => e.venue?.city ?? '-', maxWidth: 20, fit: 'truncate', minWidth: 8 },
  { header: 'MEDIA', value: mediaCount, align: 'right' },
];

/**
 * The events table of `events` and `sync`: date, event, venue, city, media count, in the given
 * order; names cut to fit a terminal's `width` (`--json` holds them whole).
 */
export function renderEventsTable(events: Event[], width: number | null = null): string {
  return renderTable(columns, events, { width });
}
