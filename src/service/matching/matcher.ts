import { StartupError } from '../../errors.js';
import type { Catalog, CatalogVenue } from '../catalog/types.js';
import { createSpatialIndex } from './spatial-index.js';
import { buildTimelines, type Timelines } from './timelines.js';

/** One item to match: coordinates in degrees and the capture instant in ms since epoch. */
export interface MatchQuery {
  latitude: number;
  longitude: number;
  takenAtMs: number;
}

/** What an item matched: a licensed event, an unlicensed one (venue only), or nothing. */
export type MatchOutcome =
  | { kind: 'matched'; eventId: number; venueId: number }
  | { kind: 'unlicensed'; eventId: number; venueId: number }
  | { kind: 'none' };

/** A matcher over one catalog. Pure: no I/O, no clock. */
export interface Matcher {
  match(q: MatchQuery): MatchOutcome;
}

/** The named settings of the matcher. */
export interface MatchSettings {
  /** The window opens this long before the event start. */
  beforeMs: number;
  /** The window closes this long after the event start. */
  afterMs: number;
  /** Outside the window, score = exp(-gap / decayMs). */
  decayMs: number;
  /** An item outside the window matches when its score is at least this. */
  threshold: number;
}

/** Window [start - 2 h, start + 4 h]; score exp(-gap / 30 min) matched at >= 0.5 (gap <= ~20.8 min). */
export const DEFAULT_MATCH_SETTINGS: Readonly<MatchSettings> = Object.freeze({
  beforeMs: 2 * 60 * 60 * 1000, // 2 h
  afterMs: 4 * 60 * 60 * 1000, // 4 h
  decayMs: 30 * 60 * 1000, // 30 min
  threshold: 0.5,
});

const NONE: MatchOutcome = Object.freeze({ kind: 'none' });

function resolveSettings(overrides: Partial<MatchSettings>): MatchSettings {
  const settings = { ...DEFAULT_MATCH_SETTINGS, ...overrides };
  const ok =
    Number.isFinite(settings.beforeMs) &&
    settings.beforeMs >= 0 &&
    Number.isFinite(settings.afterMs) &&
    settings.afterMs >= 0 &&
    Number.isFinite(settings.decayMs) &&
    settings.decayMs > 0 &&
    settings.threshold > 0 &&
    settings.threshold <= 1;
  if (!ok) throw new StartupError('invalid_match_settings', `invalid match settings ${JSON.stringify(settings)}`);
  return settings;
}

/**
 * What a matcher is built from, in flat typed arrays only: it crosses to a worker thread by
 * structured clone, and the thread builds the same matcher from it (matcherFromTables).
 */
export interface MatcherTables {
  /** Venues in ascending id order: id, centre and geofence radius. */
  venueIds: Float64Array;
  latitudes: Float64Array;
  longitudes: Float64Array;
  radiiM: Float64Array;
  /** Each venue's visible events, by start (see buildTimelines). */
  timelines: Timelines;
}

/** Lays out a catalog's venues and visible events for matching. */
export function buildMatcherTables(catalog: Catalog): MatcherTables {
  const venues: CatalogVenue[] = [...catalog.venues.values()].sort((a, b) => a.id - b.id);
  const venueIndex = new Map<number, number>();
  venues.forEach((venue, index) => {
    venueIndex.set(venue.id, index);
  });
  return {
    venueIds: Float64Array.from(venues, (venue) => venue.id),
    latitudes: Float64Array.from(venues, (venue) => venue.latitude),
    longitudes: Float64Array.from(venues, (venue) => venue.longitude),
    radiiM: Float64Array.from(venues, (venue) => venue.radius_m),
    timelines: buildTimelines(catalog, venueIndex, venues.length),
  };
}

/** A matcher over one catalog (see matcherFromTables for the rules). */
export function createMatcher(catalog: Catalog, settings: Partial<MatchSettings> = {}): Matcher {
  return matcherFromTables(buildMatcherTables(catalog), settings);
}

/**
 * Builds a matcher: a grid over venue geofences, and per venue its visible events sorted
 * by start instant (then id) in flat typed arrays, so one lookup reads one grid cell and
 * binary-searches one venue's timeline. Hidden events are left out entirely.
 *
 * Rules: the nearest containing venue centre wins (ties: lower venue id), and only that
 * venue's events are considered. Inside several windows, the start nearest the capture
 * time wins; on equal distance the earlier start (the event already under way), then the
 * lower event id. Outside every window, the nearest window edge gives the gap; on equal
 * gaps the earlier event wins.
 */
export function matcherFromTables(tables: MatcherTables, settings: Partial<MatchSettings> = {}): Matcher {
  const { beforeMs, afterMs, decayMs, threshold } = resolveSettings(settings);
  const { venueIds, latitudes, longitudes, radiiM } = tables;
  const { offsets, starts, eventIds, licensed } = tables.timelines;
  const index = createSpatialIndex(
    Array.from(venueIds, (_, v) => ({
      latitude: latitudes[v] as number,
      longitude: longitudes[v] as number,
      radiusM: radiiM[v] as number,
    })),
  );

  function outcome(at: number, v: number): MatchOutcome {
    const eventId = eventIds[at] as number;
    const venueId = venueIds[v] as number;
    return licensed[at] === 1 ? { kind: 'matched', eventId, venueId } : { kind: 'unlicensed', eventId, venueId };
  }

  function pickAtVenue(v: number, t: number): MatchOutcome {
    const first = offsets[v] as number;
    const end = offsets[v + 1] as number;
    if (first === end) return NONE;
    // Lower bound: the first event whose window has not closed yet (start >= t - afterMs).
    const from = t - afterMs;
    let lo = first;
    let hi = end;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((starts[mid] as number) < from) lo = mid + 1;
      else hi = mid;
    }
    let best = -1;
    let bestDistance = Infinity;
    const until = t + beforeMs;
    for (let at = lo; at < end && (starts[at] as number) <= until; at += 1) {
      const distance = Math.abs((starts[at] as number) - t);
      if (distance < bestDistance) {
        best = at;
        bestDistance = distance;
      }
    }
    if (best >= 0) return outcome(best, v);

    // Outside every window: the nearest edge is the close of the previous event's window
    // or the opening of the next one's.
    let previous = lo - 1;
    const gapBefore = previous >= first ? t - ((starts[previous] as number) + afterMs) : Infinity;
    const gapAfter = lo < end ? (starts[lo] as number) - beforeMs - t : Infinity;
    let chosen: number;
    let gap: number;
    if (gapBefore <= gapAfter) {
      // Several events may share that start: the lowest id comes first.
      while (previous > first && starts[previous - 1] === starts[previous]) previous -= 1;
      chosen = previous;
      gap = gapBefore;
    } else {
      chosen = lo;
      gap = gapAfter;
    }
    return Math.exp(-gap / decayMs) >= threshold ? outcome(chosen, v) : NONE;
  }

  function match(q: MatchQuery): MatchOutcome {
    const { latitude, longitude, takenAtMs } = q;
    if (!(latitude >= -90 && latitude <= 90 && longitude >= -180 && longitude <= 180)) return NONE;
    if (!Number.isFinite(takenAtMs)) return NONE;
    const v = index.nearest(latitude, longitude);
    return v < 0 ? NONE : pickAtVenue(v, takenAtMs);
  }

  return { match };
}
