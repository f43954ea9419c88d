import { describe, expect, it } from 'vitest';
import {
  createMatcher,
  DEFAULT_MATCH_SETTINGS,
  destinationPoint,
  haversineM,
} from '../../../src/service/matching/index.js';
import type { MatchOutcome } from '../../../src/service/matching/index.js';
import { build, event, venue } from '../catalog/build.js';

const MIN = 60_000;
const HOUR = 60 * MIN;

// Venue 1 (New York time) and venue 2 about 340 m east of it: their geofences overlap.
// Venue 3 in Sydney, venue 4 on the antimeridian in Fiji, venue 5 a ballpark with a
// double-header, venue 6 with a hidden and a later visible event, venue 7 unlicensed.
const catalog = build({
  venues: [
    venue(1, { latitude: 40, longitude: -74, radius_m: 250 }),
    venue(2, { latitude: 40, longitude: -73.996, radius_m: 300 }),
    venue(3, { latitude: -33.8568, longitude: 151.2153, radius_m: 200, timezone: 'Australia/Sydney' }),
    venue(4, { latitude: -16.8, longitude: 179.999, radius_m: 500, timezone: 'Pacific/Fiji' }),
    venue(5, { latitude: 41.9484, longitude: -87.6553, radius_m: 300, timezone: 'America/Chicago' }),
    venue(6, { latitude: 51.556, longitude: -0.2795, radius_m: 400, timezone: 'Europe/London' }),
    venue(7, { latitude: 39.6654, longitude: -105.2057, radius_m: 400, timezone: 'America/Denver' }),
    venue(8, { latitude: 35.7056, longitude: 139.7519, radius_m: 300, timezone: 'Asia/Tokyo' }),
  ],
  events: [
    event(10, 1, '2024-07-12T20:00:00'), // 2024-07-13T00:00Z
    event(20, 2, '2024-07-20T20:00:00'), // 2024-07-21T00:00Z
    event(30, 3, '2023-12-09T19:30:00'), // 2023-12-09T08:30Z
    event(40, 4, '2024-06-01T19:00:00'), // 2024-06-01T07:00Z
    event(50, 5, '2024-05-04T13:05:00', { kind: 'sport' }), // 18:05Z
    event(51, 5, '2024-05-04T18:10:00', { kind: 'sport' }), // 23:10Z
    event(60, 6, '2024-03-30T20:00:00', { hidden: true }), // 20:00Z
    event(61, 6, '2024-03-30T23:30:00'), // 23:30Z
    event(70, 7, '2023-08-05T19:00:00', { licensed: false }), // 2023-08-06T01:00Z
    event(80, 8, '2022-08-20T19:00:00'), // 10:00Z: two events two hours apart
    event(81, 8, '2022-08-20T21:00:00'), // 12:00Z
    event(83, 8, '2022-08-27T19:00:00'), // same start twice: the lower id wins
    event(82, 8, '2022-08-27T19:00:00'),
  ],
});
const matcher = createMatcher(catalog);
const strict = createMatcher(catalog, { threshold: 1 }); // only inside a window

const at = (iso: string, deltaMs = 0): number => Date.parse(iso) + deltaMs;
const matched = (eventId: number, venueId: number): MatchOutcome => ({ kind: 'matched', eventId, venueId });
const none: MatchOutcome = { kind: 'none' };
const near = (venueLat: number, venueLon: number, metres: number, bearing = 90) =>
  destinationPoint(venueLat, venueLon, metres, bearing);

describe('haversine', () => {
  it.each([
    [0, 0, 0, 1, 111_195],
    [51.5, -0.12, 48.85, 2.35, 343_500],
    [-16.8, 179.999, -16.8, -179.999, 213],
  ])('(%f,%f) to (%f,%f) is about %i m', (lat1, lon1, lat2, lon2, metres) => {
    expect(Math.abs(haversineM(lat1, lon1, lat2, lon2) - metres) / metres).toBeLessThan(0.005);
  });
});

describe('geofence', () => {
  const start = at('2024-07-13T00:00:00Z');
  it.each<[string, number, number, MatchOutcome]>([
    ['centre', 0, 0, matched(10, 1)],
    ['just inside the radius (west)', 249.5, 270, matched(10, 1)],
    ['just outside the radius (west)', 250.5, 270, none],
    ['just inside (north)', 249.5, 0, matched(10, 1)],
    ['just outside (south)', 250.5, 180, none],
    ['far away', 5_000, 0, none],
  ])('%s', (_name, metres, bearing, expected) => {
    const p = near(40, -74, metres, bearing);
    expect(matcher.match({ ...p, takenAtMs: start })).toEqual(expected);
  });

  it('inside two geofences: the nearest centre wins, even when only the farther venue has an event then', () => {
    const between = near(40, -74, 200, 90); // 200 m from venue 1, about 140 m from venue 2
    expect(haversineM(between.latitude, between.longitude, 40, -73.996)).toBeLessThan(200);
    expect(matcher.match({ ...between, takenAtMs: at('2024-07-21T00:00:00Z') })).toEqual(matched(20, 2));
    expect(matcher.match({ ...between, takenAtMs: at('2024-07-13T00:00:00Z') })).toEqual(none);
    const nearer1 = near(40, -74, 120, 90); // 120 m from venue 1, about 220 m from venue 2
    expect(matcher.match({ ...nearer1, takenAtMs: at('2024-07-13T00:00:00Z') })).toEqual(matched(10, 1));
  });

  it('matches across the antimeridian (Fiji)', () => {
    expect(matcher.match({ latitude: -16.8, longitude: -179.999, takenAtMs: at('2024-06-01T07:00:00Z') })).toEqual(
      matched(40, 4),
    );
    expect(matcher.match({ latitude: -16.8, longitude: 180, takenAtMs: at('2024-06-01T07:00:00Z') })).toEqual(
      matched(40, 4),
    );
  });

  it.each([
    [Number.NaN, 0],
    [91, 0],
    [0, 181],
  ])('rejects impossible coordinates (%f, %f)', (latitude, longitude) => {
    expect(matcher.match({ latitude, longitude, takenAtMs: 0 })).toEqual(none);
  });
});

describe('window [start - 2 h, start + 4 h], both ends inclusive', () => {
  const start = at('2024-07-13T00:00:00Z');
  it.each<[string, number, MatchOutcome]>([
    ['at start - 2 h', -2 * HOUR, matched(10, 1)],
    ['1 ms before start - 2 h', -2 * HOUR - 1, none],
    ['at start', 0, matched(10, 1)],
    ['at start + 4 h', 4 * HOUR, matched(10, 1)],
    ['1 ms after start + 4 h', 4 * HOUR + 1, none],
  ])('%s (strict: threshold 1)', (_name, delta, expected) => {
    expect(strict.match({ latitude: 40, longitude: -74, takenAtMs: start + delta })).toEqual(expected);
  });
});

describe('score exp(-gap / 30 min) >= 0.5 outside the window', () => {
  const start = at('2024-07-13T00:00:00Z');
  it.each<[string, number, MatchOutcome]>([
    ['20 min before the window opens', -2 * HOUR - 20 * MIN, matched(10, 1)],
    ['21 min before the window opens', -2 * HOUR - 21 * MIN, none],
    ['20 min after the window closes', 4 * HOUR + 20 * MIN, matched(10, 1)],
    ['21 min after the window closes', 4 * HOUR + 21 * MIN, none],
    ['20.79 min after (score just above 0.5)', 4 * HOUR + 20.79 * MIN, matched(10, 1)],
    ['20.80 min after (score just below 0.5)', 4 * HOUR + 20.8 * MIN, none],
  ])('%s', (_name, delta, expected) => {
    expect(matcher.match({ latitude: 40, longitude: -74, takenAtMs: start + delta })).toEqual(expected);
  });

  it('has the decided defaults as named settings', () => {
    expect(DEFAULT_MATCH_SETTINGS).toEqual({
      beforeMs: 2 * HOUR,
      afterMs: 4 * HOUR,
      decayMs: 30 * MIN,
      threshold: 0.5,
    });
  });

  it('settings change the window', () => {
    const wide = createMatcher(catalog, { beforeMs: 3 * HOUR, threshold: 1 });
    expect(wide.match({ latitude: 40, longitude: -74, takenAtMs: start - 3 * HOUR })).toEqual(matched(10, 1));
    expect(() => createMatcher(catalog, { decayMs: 0 })).toThrow(/invalid match settings/);
  });
});

describe('several windows at one venue', () => {
  const ballpark = { latitude: 41.9484, longitude: -87.6553 };
  const tokyo = { latitude: 35.7056, longitude: 139.7519 };
  it.each<[string, { latitude: number; longitude: number }, string, MatchOutcome]>([
    ['double-header: during game 1 only', ballpark, '2024-05-04T19:00:00Z', matched(50, 5)],
    ['double-header: overlap, nearer game 2', ballpark, '2024-05-04T21:30:00Z', matched(51, 5)],
    ['double-header: game 1 window, 30 min before game 2 window', ballpark, '2024-05-04T20:40:00Z', matched(50, 5)],
    ['equidistant starts: the earlier (under way) wins', tokyo, '2022-08-20T11:00:00Z', matched(80, 8)],
    ['a minute later: the later start is nearer', tokyo, '2022-08-20T11:01:00Z', matched(81, 8)],
    ['same start: the lower id wins', tokyo, '2022-08-27T10:00:00Z', matched(82, 8)],
  ])('%s', (_name, place, iso, expected) => {
    expect(matcher.match({ ...place, takenAtMs: at(iso) })).toEqual(expected);
  });
});

describe('hidden and unlicensed events', () => {
  const wembley = { latitude: 51.556, longitude: -0.2795 };
  it.each<[string, string, MatchOutcome]>([
    ['at a hidden event: as if absent', '2024-03-30T20:00:00Z', none],
    ['near the hidden one but within 20 min of the next window', '2024-03-30T21:15:00Z', matched(61, 6)],
    ['inside the visible event window', '2024-03-30T23:00:00Z', matched(61, 6)],
  ])('%s', (_name, iso, expected) => {
    expect(matcher.match({ ...wembley, takenAtMs: at(iso) })).toEqual(expected);
  });

  it('an item on an unlicensed event reports the venue and event as unlicensed', () => {
    const outcome = matcher.match({ latitude: 39.6654, longitude: -105.2057, takenAtMs: at('2023-08-06T01:30:00Z') });
    expect(outcome).toEqual({ kind: 'unlicensed', eventId: 70, venueId: 7 });
  });
});

describe('both hemispheres and time zones', () => {
  it.each<[string, number, number, string, MatchOutcome]>([
    ['Sydney (AEDT) at the start', -33.8568, 151.2153, '2023-12-09T08:30:00Z', matched(30, 3)],
    ['Sydney, the local clock time read as UTC is far off', -33.8568, 151.2153, '2023-12-09T19:30:00Z', none],
    ['New York (EDT) at the start', 40, -74, '2024-07-13T00:00:00Z', matched(10, 1)],
    ['New York, the local clock time read as UTC is 4 h early', 40, -74, '2024-07-12T20:00:00Z', none],
  ])('%s', (_name, latitude, longitude, iso, expected) => {
    expect(matcher.match({ latitude, longitude, takenAtMs: at(iso) })).toEqual(expected);
  });
});
