import { describe, expect, it } from 'vitest';
import { isWellFormedIngestResponse } from '../../src/client/ingest-check.js';
import { IngestResponse } from '../../src/contract/index.js';

const event = {
  id: 7,
  name: 'Open Air',
  starts_at_local: '2023-08-15T20:00:00',
  venue: { id: 3, name: 'Park', city: null, latitude: 48.1, longitude: 11.5 },
  performers: [{ id: 1, name: 'Band', is_headliner: true }],
  media_count: 2,
};

const valid = {
  accepted: 3,
  matched: 1,
  rejected: [{ id: 'sha256:c', reason: 'missing_taken_at' }],
  matches: [
    { media_id: 'sha256:a', matched: true, event_id: 7, venue_id: 3 },
    { media_id: 'sha256:b', matched: false, event_id: null, venue_id: null },
    { media_id: 'sha256:d', matched: false },
  ],
  events: [event],
  last_sync_at: '2023-08-15T21:00:00.123Z',
};

/** Every way to break or bend a body one member at a time. */
const ODD_VALUES: unknown[] = [
  undefined,
  null,
  true,
  0,
  -1,
  1.5,
  2 ** 53,
  NaN,
  '',
  'x',
  'missing_coordinates',
  '2023-08-15T21:00:00Z',
  '2023-02-30T21:00:00Z',
  '2023-08-15T21:00:00',
  [],
  [{}],
  {},
  { id: 'x' },
];

function mutations(body: unknown, at: string[] = []): Array<{ path: string[]; body: unknown }> {
  if (typeof body !== 'object' || body === null) return [];
  const out: Array<{ path: string[]; body: unknown }> = [];
  const keys = [...Object.keys(body), 'unknown_member'];
  for (const key of keys) {
    for (const value of [...ODD_VALUES, '__delete__']) {
      const copy = structuredClone(body) as Record<string, unknown>;
      if (value === '__delete__') delete copy[key];
      else copy[key] = value;
      out.push({ path: [...at, key], body: copy });
    }
    for (const inner of mutations((body as Record<string, unknown>)[key], [...at, key])) {
      const copy = structuredClone(body) as Record<string, unknown>;
      copy[key] = inner.body;
      out.push({ path: inner.path, body: copy });
    }
  }
  return out;
}

describe('isWellFormedIngestResponse', () => {
  it('vouches for the common answers, as the schema does', () => {
    const bodies = [
      valid,
      { ...valid, events: [] },
      { ...valid, rejected: [], matches: [], accepted: 0, matched: 0 },
      { ...valid, extra: { anything: true } },
      { ...valid, last_sync_at: '2023-08-15T23:00:00+02:00' },
    ];
    for (const body of bodies) {
      expect(IngestResponse.safeParse(body).success).toBe(true);
      expect(isWellFormedIngestResponse(body)).toBe(true);
    }
  });

  it('refuses what the schema refuses', () => {
    const bodies = [
      null,
      [],
      'ok',
      { ...valid, accepted: -1 },
      { ...valid, matched: 1.5 },
      { ...valid, rejected: [{ id: 'a', reason: 'too_blurry' }] },
      { ...valid, matches: [{ media_id: 'a', matched: 'yes' }] },
      { ...valid, matches: [{ media_id: 'a', matched: true, event_id: 1.5 }] },
      { ...valid, events: [{ ...event, starts_at_local: 'tonight' }] },
      { ...valid, last_sync_at: '2023-08-15 21:00' },
    ];
    for (const body of bodies) {
      expect(IngestResponse.safeParse(body).success).toBe(false);
      expect(isWellFormedIngestResponse(body)).toBe(false);
    }
  });

  it('never vouches for a body the schema refuses, whatever member is bent', () => {
    const cases = mutations(valid);
    expect(cases.length).toBeGreaterThan(500);
    for (const { path, body } of cases) {
      if (isWellFormedIngestResponse(body)) expect(IngestResponse.safeParse(body).success, path.join('.')).toBe(true);
    }
  });
});
