import { describe, expect, it } from 'vitest';
import { parseCatalog } from '../../../src/service/catalog/index.js';
import { RawEvent, RawEventPerformer } from '../../../src/service/catalog/schema.js';
import { seededRandom as rng } from '../../../src/util/seeded-random.js';
import { performer, venue } from './build.js';

/*
 * parseCatalog reads the common event by hand (a million events cannot afford zod) and asks
 * the RawEvent schema only about the rest. The member lists below are read from the schemas,
 * so a member added to RawEvent (or to an event's performer) must get values here, and then
 * the hand-written path must agree with the schema on it.
 */
const ABSENT = Symbol('absent');
type Pool = readonly unknown[];

const EVENT_MEMBERS = Object.keys(RawEvent.shape);
const PERFORMER_MEMBERS = Object.keys(RawEventPerformer.shape);

// An event's performer, per member: values the schema accepts and values it refuses.
const PERFORMER_VALID: Record<string, Pool> = { id: [7, 8, 9], is_headliner: [ABSENT, null, true, false] };
const PERFORMER_INVALID: Record<string, Pool> = { id: [0, -7, 7.5, '7', null], is_headliner: ['yes', 1] };

// Per event member (`performers` is built from the performer pools).
const VALID: Record<string, Pool> = {
  id: [100, 1, Number.MAX_SAFE_INTEGER],
  name: ['Show', ' x ', 'Ünïcode ☃'],
  kind: ['concert', 'sport', 'other'],
  venue_id: [1],
  starts_at_local: ['2024-07-12T20:00:00', '2024-02-29T23:59:59', '1900-01-01T00:00:00'],
  performers: [ABSENT],
  licensed: [ABSENT, true, false],
  hidden: [ABSENT, true, false],
};
const INVALID: Record<string, Pool> = {
  id: [0, -1, 1.5, '100', null, Number.MAX_SAFE_INTEGER + 1],
  name: ['', '   ', 7, null],
  kind: ['Concert', 'party', '', 1],
  venue_id: [0, '1', null, 2.5],
  starts_at_local: ['2024-07-12T20:00', '2024-07-12T20:00:00Z', '2023-02-29T10:00:00', 1720814400000, null],
  performers: ['7', {}, null, [null], [{}]],
  licensed: ['true', 1, null],
  hidden: ['false', 0, null],
};

function pick<T>(pool: readonly T[], next: () => number): T {
  return pool[Math.floor(next() * pool.length)] as T;
}

function generatePerformers(next: () => number, badRate: number): unknown[] {
  const count = Math.floor(next() * 3);
  return Array.from({ length: count }, (_, index) => {
    const entry: Record<string, unknown> = {};
    for (const member of PERFORMER_MEMBERS) {
      const bad = next() < badRate;
      // A valid id is distinct and known, so the catalog's own checks (which the schema does not make) pass.
      const value = bad
        ? pick(PERFORMER_INVALID[member] as Pool, next)
        : member === 'id'
          ? 7 + index
          : pick(PERFORMER_VALID[member] as Pool, next);
      if (value !== ABSENT) entry[member] = value;
    }
    return entry;
  });
}

/** One event: each member valid, or with `badRate` chance invalid; sometimes an unknown member. */
function generate(next: () => number, badRate: number): Record<string, unknown> {
  const item: Record<string, unknown> = {};
  for (const member of EVENT_MEMBERS) {
    const bad = next() < badRate;
    let value = pick((bad ? INVALID : VALID)[member] as Pool, next);
    if (member === 'performers' && !bad && next() < 0.7) value = generatePerformers(next, badRate);
    if (value !== ABSENT) item[member] = value;
  }
  if (next() < 0.2) item.promoter = pick([1, 'x', null, { nested: true }], next);
  return item;
}

/** The event as the schema alone would give it, or null when the schema refuses it. */
function bySchema(item: unknown): Record<string, unknown> | null {
  const parsed = RawEvent.safeParse(item);
  return parsed.success ? parsed.data : null;
}

/** The event parseCatalog gives (without its computed instant), or null when it refuses the catalog. */
function byParser(item: unknown, adopt: boolean): Record<string, unknown> | null {
  const catalog = {
    venues: [venue(1)],
    performers: [performer(7, 'Band', 'rock'), performer(8, 'Opener', null), performer(9, 'Guest', null)],
    events: [structuredClone(item)],
  };
  try {
    const event = parseCatalog(catalog, { adopt }).events.values().next().value;
    if (event === undefined) return null;
    const { startsAtMs: _instant, ...members } = event;
    return { ...members };
  } catch {
    return null;
  }
}

describe('parseCatalog agrees with the RawEvent schema', () => {
  it('takes the members from the schemas, and has valid and invalid values for each of them', () => {
    expect(EVENT_MEMBERS).toContain('starts_at_local');
    expect(Object.keys(VALID).sort(), 'give the new event member valid values').toEqual([...EVENT_MEMBERS].sort());
    expect(Object.keys(INVALID).sort(), 'give the new event member invalid values').toEqual([...EVENT_MEMBERS].sort());
    expect(Object.keys(PERFORMER_VALID).sort()).toEqual([...PERFORMER_MEMBERS].sort());
    expect(Object.keys(PERFORMER_INVALID).sort()).toEqual([...PERFORMER_MEMBERS].sort());
  });

  it('gives the event the schema gives, on valid events, copied or adopted', () => {
    const next = rng(21);
    for (let i = 0; i < 800; i += 1) {
      const item = generate(next, 0);
      const expected = bySchema(item);
      expect(expected, JSON.stringify(item)).not.toBeNull();
      expect(byParser(item, false), JSON.stringify(item)).toEqual(expected);
      expect(byParser(item, true), JSON.stringify(item)).toEqual(expected);
    }
  });

  it('refuses exactly what the schema refuses, on mixed valid and invalid events', () => {
    const next = rng(22);
    let refused = 0;
    for (let i = 0; i < 2500; i += 1) {
      const item = generate(next, 0.08);
      const expected = bySchema(item);
      if (expected === null) refused += 1;
      expect(byParser(item, i % 2 === 0), JSON.stringify(item)).toEqual(expected);
    }
    expect(refused).toBeGreaterThan(400);
  });

  it('each invalid member value alone makes both refuse the event', () => {
    const base = { id: 100, name: 'Show', kind: 'concert', venue_id: 1, starts_at_local: '2024-07-12T20:00:00' };
    for (const member of EVENT_MEMBERS) {
      for (const bad of INVALID[member] as Pool) {
        const item = { ...base, [member]: bad };
        expect(bySchema(item), `${member}: ${JSON.stringify(bad)}`).toBeNull();
        expect(byParser(item, false), `${member}: ${JSON.stringify(bad)}`).toBeNull();
      }
    }
    for (const member of PERFORMER_MEMBERS) {
      for (const bad of PERFORMER_INVALID[member] as Pool) {
        const item = { ...base, performers: [{ id: 7, [member]: bad }] };
        expect(bySchema(item), `performers.${member}: ${JSON.stringify(bad)}`).toBeNull();
        expect(byParser(item, true), `performers.${member}: ${JSON.stringify(bad)}`).toBeNull();
      }
    }
  });
});
