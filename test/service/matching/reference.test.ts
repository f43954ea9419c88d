import { describe, expect, it } from 'vitest';
import { createMatcher, createReferenceMatcher, destinationPoint } from '../../../src/service/matching/index.js';
import { build, event, venue, type Raw } from '../catalog/build.js';
import { seededRandom as random } from '../../../src/util/seeded-random.js';

// Dense clusters where geofences overlap and windows crowd: a city, the antimeridian, near a pole.
const CLUSTERS: [number, number, string][] = [
  [40.75, -73.99, 'America/New_York'],
  [-16.8, 179.995, 'Pacific/Fiji'],
  [-16.8, -179.995, 'Pacific/Fiji'],
  [78.22, 15.65, 'Arctic/Longyearbyen'],
  [-33.86, 151.21, 'Australia/Sydney'],
];

describe('indexed matcher agrees with the linear-scan reference', () => {
  it.each([1, 2, 3])('on random crowded catalogs and queries (seed %i)', (seed) => {
    const next = random(seed);
    const venues: Raw[] = [];
    const events: Raw[] = [];
    let eventId = 1;
    for (let v = 1; v <= 150; v += 1) {
      const [lat, lon, timezone] = CLUSTERS[v % CLUSTERS.length] as [number, number, string];
      const p = destinationPoint(lat, lon, next() * 3_000, next() * 360);
      venues.push(
        venue(v, { latitude: p.latitude, longitude: p.longitude, radius_m: 100 + Math.floor(next() * 900), timezone }),
      );
      for (let e = 0; e < 30; e += 1) {
        // Few distinct days and half-hour slots: overlapping windows, equal starts and DST days.
        const day = 1 + Math.floor(next() * 10);
        const hour = Math.floor(next() * 24);
        const local = `2024-${next() < 0.5 ? '03' : '11'}-${String(day).padStart(2, '0')}T${String(hour).padStart(2, '0')}:${next() < 0.5 ? '00' : '30'}:00`;
        const roll = next();
        events.push(event(eventId, v, local, { licensed: roll > 0.1, hidden: roll > 0.9 }));
        eventId += 1;
      }
    }
    const catalog = build({ venues, events });
    const indexed = createMatcher(catalog);
    const reference = createReferenceMatcher(catalog);
    const allEvents = [...catalog.events.values()];
    for (let i = 0; i < 3_000; i += 1) {
      const e = allEvents[Math.floor(next() * allEvents.length)]!;
      const v = catalog.venues.get(e.venue_id)!;
      const p = destinationPoint(v.latitude, v.longitude, next() * v.radius_m * 2, next() * 360);
      const q = {
        latitude: p.latitude,
        longitude: p.longitude,
        takenAtMs: e.startsAtMs + (next() - 0.5) * 16 * 3_600_000,
      };
      expect(indexed.match(q)).toEqual(reference.match(q));
    }
  });
});
