import { describe, expect, it } from 'vitest';
import { Stats } from '../../../src/contract/stats.js';
import { computeStats } from '../../../src/service/stats/index.js';
import { build, event, performer, venue } from '../catalog/build.js';
import { FRESH_STATS } from '../../helpers/stats.js';

const NY = venue(1, { name: 'North Arena', latitude: 40.75, longitude: -73.99 });
const SYD = venue(2, {
  name: 'South Hall',
  latitude: -33.86,
  longitude: 151.21,
  timezone: 'Australia/Sydney',
  country: 'AU',
});
const LON = venue(3, {
  name: 'London Ground',
  latitude: 51.55,
  longitude: -0.28,
  timezone: 'Europe/London',
  country: 'GB',
});
const head = (id: number) => ({ id, is_headliner: true });
const support = (id: number) => ({ id, is_headliner: false });
const team = (id: number) => ({ id, is_headliner: null });

const catalog = build({
  venues: [NY, SYD, LON],
  performers: [
    performer(1, 'Band A', 'rock'),
    performer(2, 'Band B', 'pop'),
    performer(3, 'Support C', 'jazz'),
    performer(4, 'Team X', 'NFL'),
    performer(5, 'Team Y', 'NFL'),
    performer(6, 'Team Z', 'MLB'),
    performer(7, 'Comic', 'comedy'),
  ],
  events: [
    event(100, 1, '2019-07-01T20:00:00', { performers: [head(1), support(3)] }),
    event(101, 2, '2020-01-15T20:00:00', { performers: [head(2)] }),
    event(102, 3, '2021-10-10T15:00:00', { kind: 'sport', performers: [team(4), team(5)] }),
    event(103, 1, '2021-11-01T20:00:00', { hidden: true, performers: [head(2)] }),
    event(104, 1, '2021-11-02T20:00:00', { licensed: false, performers: [head(2)] }),
    event(105, 1, '2021-12-01T20:00:00', { performers: [head(1)] }),
    // Ties: one event each, in 2016, 2017 and 2018.
    event(110, 3, '2016-03-01T19:00:00', { kind: 'sport', performers: [team(6), team(4)] }),
    event(111, 1, '2017-04-01T20:00:00', { performers: [head(2)] }),
    event(112, 1, '2018-05-01T20:00:00', { performers: [head(1)] }),
    // Sydney winter (July) three times; New Year's morning in Sydney is still Dec 31 in UTC.
    event(120, 2, '2022-07-01T19:00:00'),
    event(121, 2, '2022-07-08T19:00:00', { kind: 'other', performers: [head(7)] }),
    event(122, 2, '2023-07-15T19:00:00', { kind: 'other' }),
    event(123, 2, '2024-01-01T09:00:00', { kind: 'other' }),
  ],
});

const stats = (eventIds: number[], hasSynced = true, lastSyncAt: string | null = '2024-05-01T10:00:00.000Z') =>
  Stats.parse(computeStats({ eventIds, catalog, hasSynced, lastSyncAt }));

describe('computeStats', () => {
  it('fresh profile: zeros, nulls, empty list; sync markers passed through', () => {
    expect(computeStats({ eventIds: [], catalog, hasSynced: false, lastSyncAt: null })).toEqual(FRESH_STATS);
  });

  it('fewer than 3 events: counts and dates, superlatives null', () => {
    const s = stats([102, 100]);
    expect(s).toMatchObject({
      total_events: 2,
      total_venues: 2,
      sports_count: 1,
      concerts_count: 1,
      first_attended: '2019-07-01',
      most_recently_attended: '2021-10-10',
      busiest_year: null,
      top_season: null,
      top_artist: null,
      top_genre: null,
      top_team: null,
      top_league: null,
      has_synced: true,
      last_sync_at: '2024-05-01T10:00:00.000Z',
    });
  });

  it('rich profile: superlatives, hemisphere seasons and unique venues ordered by visits then recency', () => {
    const s = stats([100, 101, 102, 105]);
    expect(s).toMatchObject({
      total_events: 4,
      total_venues: 3,
      sports_count: 1,
      concerts_count: 3,
      first_attended: '2019-07-01',
      most_recently_attended: '2021-12-01',
      busiest_year: '2021',
      top_season: 'summer', // July in New York and January in Sydney
      top_artist: 'Band A',
      top_genre: 'rock',
      top_league: 'NFL',
      top_team: 'Team X', // X and Y share every game: alphabetical
    });
    expect(s.unique_venues).toEqual([
      {
        venue: {
          id: 1,
          name: 'North Arena',
          city: 'City',
          region: 'Region',
          country: 'US',
          latitude: 40.75,
          longitude: -73.99,
        },
        visit_count: 2,
      },
      { venue: expect.objectContaining({ id: 3, name: 'London Ground' }) as unknown, visit_count: 1 },
      { venue: expect.objectContaining({ id: 2, name: 'South Hall' }) as unknown, visit_count: 1 },
    ]);
  });

  it('ignores hidden, unlicensed, unknown and repeated event ids', () => {
    expect(stats([100, 103, 104, 999, 100]).total_events).toBe(1);
  });

  it('ties go to the value whose latest event starts last', () => {
    const s = stats([110, 111, 112]);
    expect(s).toMatchObject({ busiest_year: '2018', top_artist: 'Band A', top_genre: 'rock' });
    expect(stats([110, 111, 112, 101])).toMatchObject({ top_artist: 'Band B', busiest_year: '2020' });
  });

  it('a league counts once per game, a team once per game', () => {
    expect(stats([110, 102, 112])).toMatchObject({ top_team: 'Team X', top_league: 'NFL' });
  });

  it.each<[string, number[], Record<string, unknown>]>([
    ['July south of the equator is winter', [120, 121, 122], { top_season: 'winter' }],
    ['only concerts: no team or league', [100, 101, 105], { top_team: null, top_league: null, top_artist: 'Band A' }],
    [
      'only other shows and a headliner-less concert: no artist, genre, team or league',
      [120, 121, 122],
      { top_artist: null, top_genre: null, top_team: null, top_league: null, busiest_year: '2022', concerts_count: 1 },
    ],
    [
      'local date at the venue, not the UTC date',
      [123],
      { first_attended: '2024-01-01', most_recently_attended: '2024-01-01' },
    ],
  ])('%s', (_name, ids, expected) => {
    expect(stats(ids)).toMatchObject(expected);
  });
});
