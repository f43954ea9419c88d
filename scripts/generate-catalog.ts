/**
 * Generates the bundled demo catalog (fixtures/demo-catalog.json) from the real venues in
 * fixtures/venues/venues.json and a seeded pseudo-random generator: the same seed always
 * writes the same file. Hand-placed anchor venues and events (ids below 100 and 1000) come
 * first and never change; generated events keep at least 3 days away from anchor events
 * at anchor venues, so the anchors' answers stay fixed.
 *
 * Run: npm run catalog:generate [-- --seed N --out FILE]
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { packageRoot } from '../src/service/catalog/load.js';
import { seededRandom } from '../src/util/seeded-random.js';

export const DEFAULT_SEED = 20240712;
const FIRST_DAY = Date.UTC(2015, 0, 1);
const LAST_DAY = Date.UTC(2026, 11, 31);
const DAY_MS = 86_400_000;
const DAYS = Math.round((LAST_DAY - FIRST_DAY) / DAY_MS) + 1;
/** Generated events at an anchor venue stay at least this many local days from an anchor event. */
const ANCHOR_CLEARANCE_DAYS = 4;

export type VenueKind = 'arena' | 'stadium' | 'ballpark' | 'theatre' | 'amphitheatre' | 'festival';

/** One real venue of the source list. */
export interface SourceVenue {
  name: string;
  city: string;
  region: string;
  country: string;
  latitude: number;
  longitude: number;
  kind: VenueKind;
  timezone: string;
  league?: string;
}

/** An anchor venue: catalog fields plus what the generator needs to add events there. */
interface AnchorVenue extends Omit<SourceVenue, 'latitude' | 'longitude'> {
  id: number;
  latitude: number;
  longitude: number;
  radius_m: number;
}
/** The hand-placed anchors (fixtures/venues/anchors.json): fixed ids and values. */
export interface Anchors {
  venues: AnchorVenue[];
  performers: OutPerformer[];
  events: OutEvent[];
}
interface LeagueStyle {
  patterns: string[];
  mascots: string[];
  times: string[];
  cities: string[];
}
/** Word lists for fictional names (fixtures/venues/words.json). */
export interface Words {
  genres: string[];
  bandAdjectives: string[];
  bandNouns: string[];
  artistFirst: string[];
  artistLast: string[];
  tourWords: string[];
  otherShows: string[];
  leagues: Record<string, LeagueStyle>;
}
/** Everything the generator reads: real venues, anchors, word lists. */
export interface SourceData {
  venues: SourceVenue[];
  anchors: Anchors;
  words: Words;
}

/** Reads the source data from fixtures/venues/. */
export function readSourceData(root: string = packageRoot()): SourceData {
  const read = (name: string): unknown => JSON.parse(readFileSync(join(root, 'fixtures', 'venues', name), 'utf8'));
  return {
    venues: read('venues.json') as SourceVenue[],
    anchors: read('anchors.json') as Anchors,
    words: read('words.json') as Words,
  };
}

interface OutVenue {
  id: number;
  name: string;
  city: string;
  region: string;
  country: string;
  latitude: number;
  longitude: number;
  radius_m: number;
  timezone: string;
}
interface OutPerformer {
  id: number;
  name: string;
  category: string | null;
  image_url: null;
}
interface OutEvent {
  id: number;
  name: string;
  kind: 'concert' | 'sport' | 'other';
  venue_id: number;
  starts_at_local: string;
  performers: { id: number; is_headliner: boolean | null }[];
  licensed: boolean;
  hidden: boolean;
}
/** The catalog as written to JSON. */
export interface DemoCatalog {
  venues: OutVenue[];
  performers: OutPerformer[];
  events: OutEvent[];
}

/** Seeded helpers over mulberry32, deterministic across platforms. */
function createRandom(seed: number) {
  const next = seededRandom(seed);
  const int = (min: number, max: number): number => min + Math.floor(next() * (max - min + 1));
  const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)] as T;
  return { next, int, pick, chance: (p: number): boolean => next() < p };
}

const RADIUS: Record<VenueKind, [number, number]> = {
  arena: [150, 250],
  theatre: [100, 150],
  amphitheatre: [200, 300],
  ballpark: [300, 400],
  stadium: [350, 500],
  festival: [700, 1000],
};
/** Events per venue before scaling: share of concerts, sport, other shows. */
const MIX: Record<VenueKind, { count: number; concert: number; sport: number }> = {
  arena: { count: 105, concert: 0.6, sport: 0.3 },
  stadium: { count: 60, concert: 0.35, sport: 0.6 },
  ballpark: { count: 110, concert: 0.1, sport: 0.9 },
  theatre: { count: 100, concert: 0.6, sport: 0 },
  amphitheatre: { count: 80, concert: 0.9, sport: 0 },
  festival: { count: 8, concert: 1, sport: 0 },
};
const CONCERT_TIMES = ['19:00', '19:30', '20:00', '20:30', '21:00'];
const OTHER_TIMES = ['14:00', '19:30', '20:00'];
const FESTIVAL_TIMES = ['14:00', '15:30', '17:00', '18:30', '20:00', '22:00'];
const DOUBLE_HEADER = ['13:05', '18:10'];

function localDate(day: number): string {
  return new Date(FIRST_DAY + day * DAY_MS).toISOString().slice(0, 10);
}

function dayOf(localDateTime: string): number {
  return Math.round((Date.parse(`${localDateTime.slice(0, 10)}T00:00:00Z`) - FIRST_DAY) / DAY_MS);
}

interface Place {
  id: number;
  source: SourceVenue | AnchorVenue;
  blockedDays: Set<number>;
}

/** Builds the whole demo catalog in memory from the seed. */
export function generateDemoCatalog(data: SourceData, seed = DEFAULT_SEED): DemoCatalog {
  const random = createRandom(seed);
  const sources = data.venues;
  const { venues: ANCHOR_VENUES, performers: ANCHOR_PERFORMERS, events: ANCHOR_EVENTS } = data.anchors;
  const {
    genres: GENRES,
    bandAdjectives: BAND_ADJECTIVES,
    bandNouns: BAND_NOUNS,
    artistFirst: ARTIST_FIRST,
  } = data.words;
  const { artistLast: ARTIST_LAST, tourWords: TOUR_WORDS, otherShows: OTHER_SHOWS, leagues: LEAGUES } = data.words;
  const venues: OutVenue[] = ANCHOR_VENUES.map(({ kind: _k, league: _l, ...venue }) => ({ ...venue }));
  const places: Place[] = ANCHOR_VENUES.map((venue) => ({
    id: venue.id,
    source: venue,
    blockedDays: new Set(
      ANCHOR_EVENTS.filter((e) => e.venue_id === venue.id).flatMap((e) => {
        const day = dayOf(e.starts_at_local);
        const days: number[] = [];
        for (let d = day - ANCHOR_CLEARANCE_DAYS + 1; d < day + ANCHOR_CLEARANCE_DAYS; d += 1) days.push(d);
        return days;
      }),
    ),
  }));
  sources.forEach((source, index) => {
    const id = 100 + index;
    const [lo, hi] = RADIUS[source.kind];
    venues.push({
      id,
      name: source.name,
      city: source.city,
      region: source.region,
      country: source.country,
      latitude: source.latitude,
      longitude: source.longitude,
      radius_m: random.int(lo / 10, hi / 10) * 10,
      timezone: source.timezone,
    });
    places.push({ id, source, blockedDays: new Set() });
  });

  const performers: OutPerformer[] = ANCHOR_PERFORMERS.map((p) => ({ ...p }));
  let nextPerformerId = 100;
  const addPerformer = (name: string, category: string | null): OutPerformer => {
    const performer: OutPerformer = { id: nextPerformerId, name, category, image_url: null };
    nextPerformerId += 1;
    performers.push(performer);
    return performer;
  };

  // Artists: bands and solo acts with fictional names, each with a genre.
  const artistNames = new Set<string>();
  const artists: OutPerformer[] = [];
  while (artists.length < 600) {
    const name = random.chance(0.55)
      ? `${random.chance(0.5) ? 'The ' : ''}${random.pick(BAND_ADJECTIVES)} ${random.pick(BAND_NOUNS)}`
      : `${random.pick(ARTIST_FIRST)} ${random.pick(ARTIST_LAST)}`;
    if (artistNames.has(name)) continue;
    artistNames.add(name);
    artists.push(addPerformer(name, random.pick(GENRES)));
  }
  const comedians = Array.from({ length: 30 }, () =>
    addPerformer(`${random.pick(ARTIST_FIRST)} ${random.pick(ARTIST_LAST)}`, 'comedy'),
  );

  // Teams: one fictional home team per venue of a league, plus visitors up to ten per league.
  const homeTeam = new Map<number, OutPerformer>();
  const leagueTeams = new Map<string, OutPerformer[]>();
  const teamNames = new Set<string>();
  const teamName = (league: string, city: string): string => {
    const style = LEAGUES[league] ?? LEAGUES.default;
    for (;;) {
      const name = random
        .pick(style!.patterns)
        .replace('{city}', city)
        .replace('{mascot}', random.pick(style!.mascots));
      if (!teamNames.has(name)) {
        teamNames.add(name);
        return name;
      }
    }
  };
  for (const place of places) {
    const league = place.source.league;
    if (league === undefined) continue;
    const team = addPerformer(teamName(league, place.source.city), league);
    homeTeam.set(place.id, team);
    leagueTeams.set(league, [...(leagueTeams.get(league) ?? []), team]);
  }
  for (const [league, teams] of leagueTeams) {
    const cities = (LEAGUES[league] ?? LEAGUES.default)!.cities;
    for (let i = 0; teams.length < 10 && i < cities.length; i += 1) {
      teams.push(addPerformer(teamName(league, cities[i] as string), league));
    }
  }

  const drafts: (Omit<OutEvent, 'id' | 'licensed' | 'hidden'> & { sortKey: string })[] = [];
  const add = (
    place: Place,
    day: number,
    time: string,
    kind: OutEvent['kind'],
    name: string,
    list: OutEvent['performers'],
  ): void => {
    const starts_at_local = `${localDate(day)}T${time}:00`;
    drafts.push({
      name,
      kind,
      venue_id: place.id,
      starts_at_local,
      performers: list,
      sortKey: `${starts_at_local}|${String(place.id).padStart(6, '0')}`,
    });
  };
  const freeDay = (place: Place, used: Set<number>): number => {
    for (;;) {
      const day = random.int(0, DAYS - 1);
      if (!used.has(day) && !place.blockedDays.has(day)) {
        used.add(day);
        return day;
      }
    }
  };
  const concert = (place: Place, day: number, time: string, prefix?: string): void => {
    const headliner = random.pick(artists);
    const support = Array.from({ length: prefix === undefined ? random.int(0, 2) : 0 }, () =>
      random.pick(artists),
    ).filter((p, i, all) => p.id !== headliner.id && all.findIndex((q) => q.id === p.id) === i);
    const name =
      prefix !== undefined
        ? `${prefix}: ${headliner.name}`
        : random.pick([
            `${headliner.name} live`,
            `${headliner.name}: ${random.pick(TOUR_WORDS)} Tour`,
            support[0] !== undefined
              ? `${headliner.name} with ${support[0].name}`
              : `An evening with ${headliner.name}`,
          ]);
    add(place, day, time, 'concert', name, [
      { id: headliner.id, is_headliner: true },
      ...support.map((p) => ({ id: p.id, is_headliner: false })),
    ]);
  };

  for (const place of places) {
    const { kind, league } = place.source;
    const used = new Set<number>();
    const mix = MIX[kind];
    if (kind === 'festival') {
      // One festival a year, 2-4 consecutive days, 4-6 sets a day.
      for (let year = 2015; year <= 2026; year += 1) {
        const festival = `${place.source.city} ${random.pick(['Sound', 'Summer', 'Open Air', 'Music', 'Lights'])} Festival ${year}`;
        const start = Math.round((Date.UTC(year, random.int(2, 9), random.int(1, 25)) - FIRST_DAY) / DAY_MS);
        const days = random.int(2, 4);
        for (let d = start; d < start + days; d += 1) {
          if (place.blockedDays.has(d)) continue;
          used.add(d);
          const sets = random.int(4, 6);
          for (let s = 0; s < sets; s += 1) concert(place, d, FESTIVAL_TIMES[s] as string, festival);
        }
      }
    }
    const home = homeTeam.get(place.id);
    const times = (LEAGUES[league ?? 'default'] ?? LEAGUES.default)!.times;
    for (let n = 0; n < mix.count; n += 1) {
      const day = freeDay(place, used);
      const roll = random.next();
      if (home !== undefined && league !== undefined && roll < mix.sport) {
        const rivals = (leagueTeams.get(league) ?? []).filter((t) => t.id !== home.id);
        const game = (time: string): void => {
          const away = random.pick(rivals);
          add(place, day, time, 'sport', `${home.name} vs ${away.name}`, [
            { id: home.id, is_headliner: null },
            { id: away.id, is_headliner: null },
          ]);
        };
        if (kind === 'ballpark' && random.chance(0.05)) DOUBLE_HEADER.forEach(game);
        else game(random.pick(times));
      } else if (roll < mix.sport + mix.concert) {
        concert(place, day, random.pick(CONCERT_TIMES));
      } else {
        const show = random.pick(OTHER_SHOWS);
        const comic = show.includes('Comedy') ? random.pick(comedians) : undefined;
        add(
          place,
          day,
          random.pick(OTHER_TIMES),
          'other',
          comic === undefined ? show : `${show}: ${comic.name}`,
          comic === undefined ? [] : [{ id: comic.id, is_headliner: true }],
        );
      }
    }
  }

  drafts.sort((a, b) => (a.sortKey < b.sortKey ? -1 : a.sortKey > b.sortKey ? 1 : 0));
  const events: OutEvent[] = ANCHOR_EVENTS.map((e) => ({ ...e, performers: e.performers.map((p) => ({ ...p })) }));
  drafts.forEach(({ sortKey: _s, ...draft }, index) => {
    const roll = random.next();
    events.push({ id: 1000 + index, ...draft, licensed: !(roll < 0.03), hidden: roll >= 0.03 && roll < 0.04 });
  });
  return { venues, performers, events };
}

/** Compact JSON: one entry per line, so diffs stay readable and the file small. */
export function serializeCatalog(catalog: DemoCatalog): string {
  const section = (items: readonly unknown[]): string =>
    `[\n${items.map((item) => JSON.stringify(item)).join(',\n')}\n]`;
  return `{"venues":${section(catalog.venues)},\n"performers":${section(catalog.performers)},\n"events":${section(catalog.events)}}\n`;
}

function main(): void {
  const { values } = parseArgs({ options: { seed: { type: 'string' }, out: { type: 'string' } } });
  const root = packageRoot();
  const seed = values.seed === undefined ? DEFAULT_SEED : Number(values.seed);
  const out = values.out ?? join(root, 'fixtures', 'demo-catalog.json');
  const catalog = generateDemoCatalog(readSourceData(root), seed);
  const text = serializeCatalog(catalog);
  writeFileSync(out, text);
  process.stdout.write(
    `wrote ${out}: ${catalog.venues.length} venues, ${catalog.performers.length} performers, ` +
      `${catalog.events.length} events, ${(Buffer.byteLength(text) / 1e6).toFixed(2)} MB (seed ${seed})\n`,
  );
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) main();
