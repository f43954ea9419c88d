import type { Stats, UniqueVenue } from '../../contract/stats.js';
import { toWireVenue } from '../catalog/expand.js';
import { shownEvent } from '../event-view.js';
import type { Catalog, CatalogEvent, CatalogVenue } from '../catalog/types.js';
import { seasonOf } from './season.js';
import { createTally, type Tally } from './tally.js';

/** Superlatives (top_*, busiest_year) need at least this many matched events. */
export const SUPERLATIVE_MIN_EVENTS = 3;

/** What stats are computed from: the user's matched event ids and sync markers. */
export interface StatsInput {
  eventIds: readonly number[];
  catalog: Catalog;
  hasSynced: boolean;
  lastSyncAt: string | null;
}

/** Adds each distinct value once for this event (a game of two teams of one league counts once). */
function addDistinct(tally: Tally, values: Iterable<string | null>, startsAtMs: number): void {
  for (const value of new Set(values)) if (value !== null) tally.add(value, startsAtMs);
}

function byStartThenId(a: CatalogEvent, b: CatalogEvent): number {
  return a.startsAtMs - b.startsAtMs || a.id - b.id;
}

/** The events behind the stats: known to the catalog, licensed, not hidden, once each, by start. */
function attendedEvents(eventIds: readonly number[], catalog: Catalog): CatalogEvent[] {
  const events: CatalogEvent[] = [];
  for (const id of new Set(eventIds)) {
    const event = shownEvent(catalog, id);
    if (event !== null && catalog.venues.has(event.venue_id)) events.push(event);
  }
  return events.sort(byStartThenId);
}

function uniqueVenues(events: readonly CatalogEvent[], catalog: Catalog): UniqueVenue[] {
  const visits = new Map<number, { count: number; latestMs: number }>();
  for (const event of events) {
    const entry = visits.get(event.venue_id);
    if (entry === undefined) visits.set(event.venue_id, { count: 1, latestMs: event.startsAtMs });
    else {
      entry.count += 1;
      entry.latestMs = Math.max(entry.latestMs, event.startsAtMs);
    }
  }
  // Most visited first, then the most recently visited, then by venue id.
  return [...visits.entries()]
    .sort(([idA, a], [idB, b]) => b.count - a.count || b.latestMs - a.latestMs || idA - idB)
    .map(([id, { count }]) => ({
      // attendedEvents kept only events whose venue exists.
      venue: toWireVenue(catalog.venues.get(id) as CatalogVenue),
      visit_count: count,
    }));
}

/** Profile statistics of a user, from the matched event ids, per the product decisions. Pure. */
export function computeStats(input: StatsInput): Stats {
  const { catalog } = input;
  const events = attendedEvents(input.eventIds, catalog);
  const years = createTally();
  const seasons = createTally();
  const artists = createTally();
  const genres = createTally();
  const teams = createTally();
  const leagues = createTally();
  let sports = 0;
  let concerts = 0;

  for (const event of events) {
    const at = event.startsAtMs;
    const local = event.starts_at_local;
    const venue = catalog.venues.get(event.venue_id);
    years.add(local.slice(0, 4), at);
    if (venue !== undefined) seasons.add(seasonOf(Number(local.slice(5, 7)), venue.latitude), at);
    const performers = event.performers.flatMap((entry) => {
      const performer = catalog.performers.get(entry.id);
      return performer === undefined ? [] : [{ performer, headliner: entry.is_headliner === true }];
    });
    if (event.kind === 'concert') {
      concerts += 1;
      const headliners = performers.filter((p) => p.headliner).map((p) => p.performer);
      addDistinct(
        artists,
        headliners.map((p) => p.name),
        at,
      );
      addDistinct(
        genres,
        headliners.map((p) => p.category),
        at,
      );
    } else if (event.kind === 'sport') {
      sports += 1;
      addDistinct(
        teams,
        performers.map((p) => p.performer.name),
        at,
      );
      addDistinct(
        leagues,
        performers.map((p) => p.performer.category),
        at,
      );
    }
  }

  const rich = events.length >= SUPERLATIVE_MIN_EVENTS;
  const first = events[0];
  const last = events[events.length - 1];
  return {
    total_events: events.length,
    total_venues: new Set(events.map((event) => event.venue_id)).size,
    has_synced: input.hasSynced,
    sports_count: sports,
    concerts_count: concerts,
    first_attended: first === undefined ? null : first.starts_at_local.slice(0, 10),
    most_recently_attended: last === undefined ? null : last.starts_at_local.slice(0, 10),
    busiest_year: rich ? years.top() : null,
    top_season: rich ? (seasons.top() as Stats['top_season']) : null,
    top_artist: rich ? artists.top() : null,
    top_genre: rich ? genres.top() : null,
    top_team: rich ? teams.top() : null,
    top_league: rich ? leagues.top() : null,
    unique_venues: uniqueVenues(events, catalog),
    last_sync_at: input.lastSyncAt,
  };
}
