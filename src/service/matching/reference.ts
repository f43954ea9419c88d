import type { Catalog, CatalogEvent, CatalogVenue } from '../catalog/types.js';
import { haversineM } from './geo.js';
import { DEFAULT_MATCH_SETTINGS, type Matcher, type MatchOutcome, type MatchSettings } from './matcher.js';

/**
 * The matching rules written as plainly as possible, scanning every venue and event: slow,
 * but an independent statement of the rules that tests and the benchmark compare the
 * indexed matcher against. Not for production use.
 */
export function createReferenceMatcher(catalog: Catalog, settings: Partial<MatchSettings> = {}): Matcher {
  const { beforeMs, afterMs, decayMs, threshold } = { ...DEFAULT_MATCH_SETTINGS, ...settings };
  const venues = [...catalog.venues.values()];
  const events = [...catalog.events.values()].filter((e) => !e.hidden);

  const outcome = (event: CatalogEvent): MatchOutcome =>
    event.licensed
      ? { kind: 'matched', eventId: event.id, venueId: event.venue_id }
      : { kind: 'unlicensed', eventId: event.id, venueId: event.venue_id };

  return {
    match({ latitude, longitude, takenAtMs }) {
      let venue: CatalogVenue | undefined;
      let best = Infinity;
      for (const v of venues) {
        const d = haversineM(latitude, longitude, v.latitude, v.longitude);
        if (d <= v.radius_m && (d < best || (d === best && venue !== undefined && v.id < venue.id))) {
          venue = v;
          best = d;
        }
      }
      if (venue === undefined) return { kind: 'none' };
      const here = events.filter((e) => e.venue_id === venue.id);
      // Inside windows: nearest start, then earlier start, then lower id.
      const inside = here
        .filter((e) => takenAtMs >= e.startsAtMs - beforeMs && takenAtMs <= e.startsAtMs + afterMs)
        .sort(
          (a, b) =>
            Math.abs(a.startsAtMs - takenAtMs) - Math.abs(b.startsAtMs - takenAtMs) ||
            a.startsAtMs - b.startsAtMs ||
            a.id - b.id,
        );
      if (inside[0] !== undefined) return outcome(inside[0]);
      // Outside: smallest gap to a window edge, then earlier start, then lower id.
      const gap = (e: CatalogEvent): number =>
        takenAtMs < e.startsAtMs - beforeMs
          ? e.startsAtMs - beforeMs - takenAtMs
          : takenAtMs - (e.startsAtMs + afterMs);
      const nearest = here.sort((a, b) => gap(a) - gap(b) || a.startsAtMs - b.startsAtMs || a.id - b.id)[0];
      return nearest !== undefined && Math.exp(-gap(nearest) / decayMs) >= threshold
        ? outcome(nearest)
        : { kind: 'none' };
    },
  };
}
