import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { demoCatalogPath, loadCatalog, toWireEvent } from '../../../src/service/catalog/index.js';
import type { Catalog } from '../../../src/service/catalog/types.js';
import { createMatcher } from '../../../src/service/matching/index.js';
import { generateDemoCatalog, readSourceData, serializeCatalog } from '../../../scripts/generate-catalog.js';

// Country code -> inhabited continent, for every country the demo catalog uses.
const CONTINENT: Record<string, string> = {
  US: 'North America',
  CA: 'North America',
  MX: 'North America',
  BR: 'South America',
  AR: 'South America',
  CL: 'South America',
  CO: 'South America',
  PE: 'South America',
  UY: 'South America',
  EC: 'South America',
  BO: 'South America',
  PY: 'South America',
  VE: 'South America',
  GB: 'Europe',
  IE: 'Europe',
  FR: 'Europe',
  ES: 'Europe',
  PT: 'Europe',
  IT: 'Europe',
  DE: 'Europe',
  NL: 'Europe',
  BE: 'Europe',
  AT: 'Europe',
  CH: 'Europe',
  SE: 'Europe',
  NO: 'Europe',
  DK: 'Europe',
  FI: 'Europe',
  IS: 'Europe',
  PL: 'Europe',
  CZ: 'Europe',
  HU: 'Europe',
  RS: 'Europe',
  GR: 'Europe',
  TR: 'Europe',
  RU: 'Europe',
  ZA: 'Africa',
  EG: 'Africa',
  MA: 'Africa',
  KE: 'Africa',
  NG: 'Africa',
  GH: 'Africa',
  SN: 'Africa',
  TN: 'Africa',
  RW: 'Africa',
  ET: 'Africa',
  TZ: 'Africa',
  CI: 'Africa',
  JP: 'Asia',
  KR: 'Asia',
  CN: 'Asia',
  HK: 'Asia',
  TW: 'Asia',
  SG: 'Asia',
  MY: 'Asia',
  TH: 'Asia',
  ID: 'Asia',
  PH: 'Asia',
  VN: 'Asia',
  IN: 'Asia',
  PK: 'Asia',
  BD: 'Asia',
  LK: 'Asia',
  AE: 'Asia',
  QA: 'Asia',
  SA: 'Asia',
  IL: 'Asia',
  IR: 'Asia',
  AU: 'Oceania',
  NZ: 'Oceania',
  FJ: 'Oceania',
};

const ANCHOR_VENUES = [
  [1, 'Madison Square Garden', 'New York', 'NY', 'US', 40.7505, -73.9934, 250, 'America/New_York'],
  [2, 'Sydney Opera House', 'Sydney', 'NSW', 'AU', -33.8568, 151.2153, 200, 'Australia/Sydney'],
  [3, 'Wembley Stadium', 'London', 'England', 'GB', 51.556, -0.2795, 400, 'Europe/London'],
  [4, 'Tokyo Dome', 'Tokyo', 'Tokyo', 'JP', 35.7056, 139.7519, 300, 'Asia/Tokyo'],
  [5, 'Allianz Parque', 'São Paulo', 'SP', 'BR', -23.5275, -46.6783, 300, 'America/Sao_Paulo'],
  [6, 'Red Rocks Amphitheatre', 'Morrison', 'CO', 'US', 39.6654, -105.2057, 400, 'America/Denver'],
  [7, 'Cape Town Stadium', 'Cape Town', 'Western Cape', 'ZA', -33.9035, 18.4112, 350, 'Africa/Johannesburg'],
  [8, 'Accor Arena', 'Paris', 'Île-de-France', 'FR', 48.8386, 2.3786, 250, 'Europe/Paris'],
] as const;
const ANCHOR_PERFORMERS = [
  [1, 'The Example Band', 'rock'],
  [2, 'Aurora Strings', 'classical'],
  [3, 'Northbank FC', 'Premier League'],
  [4, 'Riverside United', 'Premier League'],
  [5, 'Yomiuri Giants', 'NPB'],
  [6, 'Hanshin Tigers', 'NPB'],
  [7, 'Canyon Echo', 'folk'],
  [8, 'Cape Town City', 'PSL'],
  [9, 'Stormers Select', 'PSL'],
  [10, 'Nuit Blanche', 'electronic'],
] as const;
type AnchorRow = [number, string, string, number, string, string, number[], boolean | null, boolean, boolean];
const ANCHOR_EVENTS: AnchorRow[] = [
  [
    1,
    'The Example Band: Summer Tour',
    'concert',
    1,
    '2024-07-12T20:00:00',
    '2024-07-13T00:00:00.000Z',
    [1],
    true,
    true,
    false,
  ],
  [
    2,
    'Aurora Strings at the Opera House',
    'concert',
    2,
    '2023-12-09T19:30:00',
    '2023-12-09T08:30:00.000Z',
    [2],
    true,
    true,
    false,
  ],
  [
    3,
    'Northbank FC vs Riverside United',
    'sport',
    3,
    '2024-03-30T20:00:00',
    '2024-03-30T20:00:00.000Z',
    [3, 4],
    null,
    true,
    false,
  ],
  [
    4,
    'Yomiuri Giants vs Hanshin Tigers',
    'sport',
    4,
    '2022-08-20T18:00:00',
    '2022-08-20T09:00:00.000Z',
    [5, 6],
    null,
    true,
    false,
  ],
  [
    5,
    'The Example Band: World Tour',
    'concert',
    5,
    '2024-11-16T21:00:00',
    '2024-11-17T00:00:00.000Z',
    [1],
    true,
    true,
    false,
  ],
  [
    6,
    'Canyon Echo at Red Rocks',
    'concert',
    6,
    '2023-08-05T19:00:00',
    '2023-08-06T01:00:00.000Z',
    [7],
    true,
    false,
    false,
  ],
  [
    7,
    'Cape Town City vs Stormers Select',
    'sport',
    7,
    '2022-02-19T15:00:00',
    '2022-02-19T13:00:00.000Z',
    [8, 9],
    null,
    true,
    true,
  ],
  [8, 'Nuit Blanche live', 'concert', 8, '2024-10-26T20:00:00', '2024-10-26T18:00:00.000Z', [10], true, true, false],
];
const DAY = 86_400_000;

let catalog: Catalog;
beforeAll(async () => {
  catalog = await loadCatalog();
});

describe('bundled demo catalog', () => {
  it('is what the seeded generator writes (regenerate with npm run catalog:generate)', () => {
    expect(readFileSync(demoCatalogPath(), 'utf8')).toBe(serializeCatalog(generateDemoCatalog(readSourceData())));
  });

  it.each(ANCHOR_VENUES)(
    'anchor venue %i %s',
    (id, name, city, region, country, latitude, longitude, radius_m, timezone) => {
      expect(catalog.venues.get(id)).toEqual({
        id,
        name,
        city,
        region,
        country,
        latitude,
        longitude,
        radius_m,
        timezone,
      });
    },
  );

  it.each(ANCHOR_PERFORMERS)('anchor performer %i %s', (id, name, category) => {
    expect(catalog.performers.get(id)).toEqual({ id, name, category, image_url: null });
  });

  it.each(ANCHOR_EVENTS)(
    'anchor event %i %s',
    (id, name, kind, venueId, local, instant, performerIds, headliner, licensed, hidden) => {
      const e = catalog.events.get(id);
      expect(e).toEqual({
        id,
        name,
        kind,
        venue_id: venueId,
        starts_at_local: local,
        startsAtMs: Date.parse(instant),
        performers: performerIds.map((p) => ({ id: p, is_headliner: headliner })),
        licensed,
        hidden,
      });
    },
  );

  it('anchors answer as planned: matched, unlicensed, hidden', () => {
    const matcher = createMatcher(catalog);
    const anchor = (id: number) => catalog.events.get(id)!;
    const at = (id: number) => {
      const e = anchor(id);
      const v = catalog.venues.get(e.venue_id)!;
      return matcher.match({ latitude: v.latitude, longitude: v.longitude, takenAtMs: e.startsAtMs + 60 * 60_000 });
    };
    for (const id of [1, 2, 3, 4, 5, 8]) expect(at(id)).toEqual({ kind: 'matched', eventId: id, venueId: id });
    expect(at(6)).toEqual({ kind: 'unlicensed', eventId: 6, venueId: 6 });
    expect(at(7)).toEqual({ kind: 'none' });
    expect(toWireEvent(anchor(3), catalog).performers?.map((p) => p.name)).toEqual([
      'Northbank FC',
      'Riverside United',
    ]);
  });

  it('keeps generated ids apart and generated events at least 3 days from anchor events at anchor venues', () => {
    for (const v of catalog.venues.keys()) expect(v <= 8 || v >= 100).toBe(true);
    for (const e of catalog.events.values()) {
      expect(e.id <= 8 || e.id >= 1000).toBe(true);
      if (e.id < 1000 || e.venue_id > 8) continue;
      const anchor = catalog.events.get(e.venue_id)!;
      expect(Math.abs(e.startsAtMs - anchor.startsAtMs)).toBeGreaterThanOrEqual(3 * DAY);
    }
  });

  it('has at least 150 venues on every inhabited continent and in both hemispheres', () => {
    const venues = [...catalog.venues.values()];
    expect(venues.length).toBeGreaterThanOrEqual(150);
    const continents = new Set(venues.map((v) => CONTINENT[v.country ?? ''] ?? `unknown ${v.country}`));
    expect([...continents].sort()).toEqual(['Africa', 'Asia', 'Europe', 'North America', 'Oceania', 'South America']);
    expect(venues.some((v) => v.latitude < 0) && venues.some((v) => v.latitude > 0)).toBe(true);
    expect(venues.some((v) => v.longitude < 0) && venues.some((v) => v.longitude > 0)).toBe(true);
    for (const v of venues) expect(v.radius_m).toBeGreaterThanOrEqual(100);
  });

  it(
    'has at least 20,000 events from 2015 to 2026 with every kind, unlicensed, hidden, double-headers and festival ' +
      'days',
    () => {
      const events = [...catalog.events.values()];
      expect(events.length).toBeGreaterThanOrEqual(20_000);
      for (const e of events) {
        const year = Number(e.starts_at_local.slice(0, 4));
        expect(year >= 2015 && year <= 2026).toBe(true);
      }
      const share = (f: (e: (typeof events)[number]) => boolean) => events.filter(f).length / events.length;
      expect(share((e) => !e.licensed)).toBeGreaterThan(0.02);
      expect(share((e) => !e.licensed)).toBeLessThan(0.04);
      expect(share((e) => e.hidden)).toBeGreaterThan(0.005);
      expect(share((e) => e.hidden)).toBeLessThan(0.015);
      for (const kind of ['concert', 'sport', 'other']) expect(share((e) => e.kind === kind)).toBeGreaterThan(0.05);
      const perDay = new Map<string, typeof events>();
      for (const e of events) {
        const key = `${e.venue_id}|${e.starts_at_local.slice(0, 10)}`;
        perDay.set(key, [...(perDay.get(key) ?? []), e]);
      }
      const days = [...perDay.values()];
      expect(days.some((d) => d.length === 2 && d.every((e) => e.kind === 'sport'))).toBe(true);
      expect(days.filter((d) => d.length >= 4 && d.every((e) => e.kind === 'concert')).length).toBeGreaterThan(100);
      const concerts = events.filter((e) => e.kind === 'concert');
      expect(concerts.every((e) => e.performers.some((p) => p.is_headliner === true))).toBe(true);
      const sports = events.filter((e) => e.kind === 'sport' && e.id >= 1000);
      expect(
        sports.every(
          (e) => e.performers.length === 2 && e.performers.every((p) => catalog.performers.get(p.id)?.category),
        ),
      ).toBe(true);
    },
  );
});
