import type { Event, Stats } from '../contract/index.js';

/**
 * The data model of a user's history (`--html` after a sync, or of `events`/`stats`): the
 * matched events in time order with venue and media count, the venues with a place (the
 * map's second layer), and the stats the service returned. Pure.
 */

export interface HistoryEvent {
  id: number;
  name: string;
  /** Wall-clock time at the venue, as the service gives it (never converted). */
  starts_at_local: string;
  venue: string | null;
  city: string | null;
  country: string | null;
  media_count: number;
  performers: string[];
}

export interface HistoryVenue {
  name: string;
  latitude: number;
  longitude: number;
  /** Matched events at this venue. */
  events: number;
}

export interface HistoryReport {
  user_id: string;
  /** Oldest first. */
  events: HistoryEvent[];
  venues: HistoryVenue[];
  stats: Stats | null;
}

/** Builds the history from the service's events (any order) and stats. */
export function buildHistory(userId: string, events: readonly Event[], stats: Stats | null): HistoryReport {
  const venues = new Map<number, HistoryVenue>();
  const rows = events.map((event): HistoryEvent => {
    const venue = event.venue ?? null;
    if (venue && typeof venue.latitude === 'number' && typeof venue.longitude === 'number') {
      const seen = venues.get(venue.id);
      if (seen) seen.events += 1;
      else venues.set(venue.id, { name: venue.name, latitude: venue.latitude, longitude: venue.longitude, events: 1 });
    }
    return {
      id: event.id,
      name: event.name,
      starts_at_local: event.starts_at_local,
      venue: venue?.name ?? null,
      city: venue?.city ?? null,
      country: venue?.country ?? null,
      media_count: event.media_count ?? event.media?.length ?? 0,
      performers: (event.performers ?? []).map((p) => p.name),
    };
  });
  // Local times at different venues compare as text: the timeline is the order of the dates people saw.
  rows.sort((a, b) =>
    a.starts_at_local < b.starts_at_local ? -1 : a.starts_at_local > b.starts_at_local ? 1 : a.id - b.id,
  );
  return { user_id: userId, events: rows, venues: [...venues.values()], stats };
}
