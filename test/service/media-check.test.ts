import { describe, expect, it } from 'vitest';
import { MAX_THUMBNAIL_URL_LENGTH, MediaMetadata } from '../../src/contract/media.js';
import { isWellFormedMedia } from '../../src/service/media-check.js';
import { seededRandom as rng } from '../../src/util/seeded-random.js';

const ABSENT = Symbol('absent');
type Pool = readonly unknown[];

// Per member: values the schema accepts, and values close to them that it may refuse.
const VALID: Record<string, Pool> = {
  id: ['a', 'sha256:' + 'f'.repeat(64), 'x'.repeat(255), 'ünï ☃'],
  taken_at: [
    ABSENT,
    null,
    '2024-07-12T20:00:00Z',
    '2024-07-12T20:00:00.123Z',
    '2024-02-29T23:59:59.5+05:30',
    '2023-12-31T00:00:00-08:00',
    '1999-01-01T00:00:00.123456789Z',
  ],
  latitude: [ABSENT, null, 0, -0, 90, -90, 40.7505, -33.8915],
  longitude: [ABSENT, null, 0, 180, -180, -73.9934, 151.2254],
  media_type: [ABSENT, null, 'photo', 'video'],
  filename: [ABSENT, null, '', 'IMG_0001.JPG'],
  // Never fetched or validated: any string up to the cap is kept verbatim.
  thumbnail_url: [
    ABSENT,
    null,
    'https://cdn.example.com/t/1.jpg',
    'http://localhost:8080/x?y=1',
    '',
    'thumbs/1.jpg',
    'javascript:alert(1)',
    'file:///etc/passwd',
    'x'.repeat(MAX_THUMBNAIL_URL_LENGTH),
    '😀',
  ],
  duration_seconds: [ABSENT, null, 0, 12.5, 1e9],
  device_make: [ABSENT, null, 'Apple'],
  device_model: [ABSENT, null, 'iPhone 15'],
  device_lens_model: [ABSENT, null, ''],
};
const INVALID: Record<string, Pool> = {
  id: ['x'.repeat(256), 42, null, ['a'], 'a\ud800', '\udc00b'],
  taken_at: [
    '2024-07-12T20:00:00',
    '2024-07-12 20:00:00Z',
    '2023-02-29T10:00:00Z',
    '2024-13-01T00:00:00Z',
    '2024-07-12T24:00:00Z',
    '2024-07-12T20:00Z',
    '2024-07-12T20:00:00+24:00',
    '',
    1720814400000,
    true,
    '2024-07-12T20:00:00.Z',
  ],
  latitude: [90.0001, -91, '40.7', Number.NaN, Infinity, true, {}],
  longitude: [180.5, -181, '0', Number.NaN, -Infinity],
  media_type: ['Photo', 'image', '', 1, true],
  filename: [1, false, {}, []],
  thumbnail_url: [1, {}, true, []],
  duration_seconds: [-1, -0.001, '3', Infinity, Number.NaN],
  device_make: [1, true],
  device_model: [{}, 0],
  device_lens_model: [[], 2],
};
/** The schema's members, read from it: a member added to MediaMetadata is generated and checked here too. */
const MEMBERS = Object.keys(MediaMetadata.shape);

function pick<T>(pool: readonly T[], next: () => number): T {
  return pool[Math.floor(next() * pool.length)] as T;
}

/**
 * One item: every member from the valid pool, each with `badRate` chance of an invalid value; sometimes unknown
 * members.
 */
function generate(next: () => number, badRate: number): Record<string, unknown> {
  const item: Record<string, unknown> = {};
  for (const member of MEMBERS) {
    const value = next() < badRate ? pick(INVALID[member] as Pool, next) : pick(VALID[member] as Pool, next);
    if (value !== ABSENT) item[member] = value;
  }
  if (next() < 0.2) item.extra = pick([1, 'x', null, { nested: true }], next);
  return item;
}

/** What the service asked the schema before the fast check existed. */
function schemaAccepts(item: Record<string, unknown>): boolean {
  return MediaMetadata.safeParse(item.media_type === null ? { ...item, media_type: undefined } : item).success;
}

describe('isWellFormedMedia agrees with the MediaMetadata schema', () => {
  it('takes the members from the schema, and has valid and invalid values for each of them', () => {
    // A member the pools lack would never be generated, and the fast check never compared on it.
    expect(MEMBERS).toContain('id');
    expect(Object.keys(VALID).sort(), 'give the new member valid values in VALID').toEqual([...MEMBERS].sort());
    expect(Object.keys(INVALID).sort(), 'give the new member invalid values in INVALID').toEqual([...MEMBERS].sort());
    for (const member of MEMBERS) {
      expect((VALID[member] as Pool).length, member).toBeGreaterThan(0);
      expect((INVALID[member] as Pool).length, member).toBeGreaterThan(0);
    }
  });

  it('accepts every item built from valid members, as the schema does', () => {
    const next = rng(11);
    for (let i = 0; i < 5000; i += 1) {
      const item = generate(next, 0);
      expect(schemaAccepts(item), JSON.stringify(item)).toBe(true);
      expect(isWellFormedMedia(item), JSON.stringify(item)).toBe(true);
    }
  });

  it('gives the same answer as the schema on mixed valid and invalid items', () => {
    const next = rng(12);
    let refused = 0;
    for (let i = 0; i < 20000; i += 1) {
      const item = generate(next, 0.08);
      const schema = schemaAccepts(item);
      if (!schema) refused += 1;
      // Never true where the schema says no; on these members it is exact both ways.
      expect(isWellFormedMedia(item), JSON.stringify(item)).toBe(schema);
    }
    expect(refused).toBeGreaterThan(5000);
  });

  it('says no for anything that is not a plain object with a usable id', () => {
    for (const value of [null, undefined, 1, 'x', [], [{ id: 'a' }], {}, { id: '' }, { id: 1 }]) {
      expect(isWellFormedMedia(value)).toBe(false);
    }
  });

  it('each invalid member value alone makes both refuse the item', () => {
    for (const member of MEMBERS) {
      for (const bad of INVALID[member] as Pool) {
        const item: Record<string, unknown> = {
          id: 'a',
          taken_at: '2024-07-12T20:00:00Z',
          latitude: 1,
          longitude: 2,
          [member]: bad,
        };
        expect(schemaAccepts(item), `${member}: ${String(bad)}`).toBe(false);
        expect(isWellFormedMedia(item), `${member}: ${String(bad)}`).toBe(false);
      }
    }
  });

  it('drops a thumbnail it cannot keep verbatim, and keeps the item', () => {
    for (const thumbnail of ['x'.repeat(MAX_THUMBNAIL_URL_LENGTH + 1), 'https://cdn.example.com/\ud800.jpg']) {
      const item = { id: 'a', taken_at: '2024-07-12T20:00:00Z', latitude: 1, longitude: 2, thumbnail_url: thumbnail };
      // The fast check leaves it to the schema, which accepts the item without the URL.
      expect(isWellFormedMedia(item)).toBe(false);
      const parsed = MediaMetadata.safeParse(item);
      expect(parsed.success && parsed.data.thumbnail_url).toBe(null);
    }
    const kept = MediaMetadata.parse({ id: 'a', thumbnail_url: ' ./relative thumb ' });
    expect(kept.thumbnail_url).toBe(' ./relative thumb ');
  });
});
