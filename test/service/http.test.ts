import { once } from 'node:events';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from 'undici';
import { EventsPage, IngestResponse, Stats, type Event } from '../../src/contract/index.js';
import { createApp } from '../../src/service/app.js';
import { parseCatalog } from '../../src/service/catalog/index.js';
import { destinationPoint } from '../../src/service/matching/index.js';
import { ACME, ANCHOR_CATALOG_JSON, checkResponses, itemAt, KEYS, openTestStore, VENUE } from './helpers.js';
import { FRESH_STATS } from '../helpers/stats.js';

/** Anchors plus a run of events at two extra venues for paging (ties on the start instant included). */
const PAGING_EVENTS = Array.from({ length: 45 }, (_, i) => ({
  id: 100 + i,
  name: `Night ${i}`,
  kind: i % 3 === 0 ? 'sport' : 'concert',
  venue_id: i % 2 === 0 ? 20 : 21,
  // Pairs share a date: venues 20 and 21 share a zone, so pairs share the start instant.
  starts_at_local: `2019-${String((Math.floor(i / 2) % 12) + 1).padStart(2, '0')}-${String(Math.floor(i / 24) + 10)}T20:00:00`,
  performers: [],
}));
const CATALOG = {
  ...ANCHOR_CATALOG_JSON,
  venues: [
    ...ANCHOR_CATALOG_JSON.venues,
    { id: 20, name: 'North Hall', latitude: 60.1699, longitude: 24.9384, radius_m: 300, timezone: 'Europe/Helsinki' },
    { id: 21, name: 'South Hall', latitude: 60.2, longitude: 24.9, radius_m: 300, timezone: 'Europe/Helsinki' },
  ],
  events: [...ANCHOR_CATALOG_JSON.events, ...PAGING_EVENTS],
};

let baseUrl = '';
let close: () => Promise<void>;
beforeAll(async () => {
  const store = await openTestStore();
  const catalog = parseCatalog(CATALOG);
  const app = await createApp({ store, catalog, keys: KEYS });
  const violations = checkResponses(app);
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  baseUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/v1`;
  close = async () => {
    await app.close();
    await store.close();
    expect(violations, 'responses outside the OpenAPI document').toEqual([]);
  };
});
afterAll(async () => close());

async function call(method: 'GET' | 'POST', path: string, body?: unknown): Promise<{ status: number; json: any }> {
  const res = await request(`${baseUrl}${path}`, {
    method,
    headers: { 'x-partner-api-key': ACME, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.statusCode, json: await res.body.json() };
}
const newUser = async (email: string): Promise<string> => (await call('POST', '/users', { email })).json.user_id;
const ingest = async (user: string, media: unknown[]) => {
  const res = await call('POST', `/users/${user}/media`, { media });
  expect(res.status).toBe(200);
  return IngestResponse.parse(res.json);
};
const outcome = async (user: string, item: Record<string, unknown>) => (await ingest(user, [item])).matches[0];

describe('matching over HTTP', () => {
  let user: string;
  beforeAll(async () => {
    user = await newUser('matching@example.com');
  });

  it('matches the window edges inclusively and the decay just outside', async () => {
    // Event 1 starts 2024-07-13T00:00Z (20:00 EDT): window 22:00Z..04:00Z.
    const start = '2024-07-13T00:00:00Z';
    expect(await outcome(user, itemAt('w1', 1, start, -120))).toMatchObject({ matched: true, event_id: 1 });
    expect(await outcome(user, itemAt('w2', 1, start, 240))).toMatchObject({ matched: true, event_id: 1 });
    expect(await outcome(user, itemAt('w3', 1, start, -140))).toMatchObject({ matched: true, event_id: 1 });
    expect(await outcome(user, itemAt('w4', 1, start, 260))).toMatchObject({ matched: true, event_id: 1 });
    expect(await outcome(user, itemAt('w5', 1, start, -141))).toEqual({
      media_id: 'w5',
      matched: false,
      event_id: null,
      venue_id: null,
    });
    expect(await outcome(user, itemAt('w6', 1, start, 261))).toEqual({
      media_id: 'w6',
      matched: false,
      event_id: null,
      venue_id: null,
    });
  });

  it('matches inside the geofence and not just outside it', async () => {
    const at = (id: string, metres: number) => {
      const p = destinationPoint(VENUE[1]!.lat, VENUE[1]!.lon, metres, 90);
      return { id, taken_at: '2024-07-13T00:00:00Z', latitude: p.latitude, longitude: p.longitude };
    };
    expect(await outcome(user, at('g1', 245))).toMatchObject({ matched: true, event_id: 1 });
    expect(await outcome(user, at('g2', 255))).toMatchObject({ matched: false, event_id: null });
  });

  it('resolves local start times in both hemispheres and across DST changes', async () => {
    // Sydney (AEDT, south): 2023-12-09 19:30 local = 08:30Z.
    expect(await outcome(user, itemAt('s1', 2, '2023-12-09T08:30:00Z', -120))).toMatchObject({ event_id: 2 });
    expect(await outcome(user, itemAt('s2', 2, '2023-12-09T08:30:00Z', -142))).toMatchObject({ matched: false });
    // São Paulo (no DST, -03): 2024-11-16 21:00 local = 2024-11-17T00:00Z.
    expect(await outcome(user, itemAt('s3', 5, '2024-11-17T00:00:00Z', 240))).toMatchObject({ event_id: 5 });
    // London, the night before BST starts: 20:00 GMT = 20:00Z; +4 h crosses the change.
    expect(await outcome(user, itemAt('d1', 3, '2024-03-30T20:00:00Z', 240))).toMatchObject({ event_id: 3 });
    expect(await outcome(user, itemAt('d2', 3, '2024-03-30T20:00:00Z', 262))).toMatchObject({ matched: false });
    // Paris, the day before CET returns: 20:00 CEST = 18:00Z.
    expect(await outcome(user, itemAt('d3', 8, '2024-10-26T18:00:00Z', -120))).toMatchObject({ event_id: 8 });
    expect(await outcome(user, itemAt('d4', 8, '2024-10-26T18:00:00Z', -142))).toMatchObject({ matched: false });
    // Tokyo: 18:00 JST = 09:00Z.
    expect(await outcome(user, itemAt('t1', 4, '2022-08-20T09:00:00Z', 0))).toMatchObject({ event_id: 4 });
  });

  it('returns unlicensed events as unmatched with the venue, and hidden ones as nothing', async () => {
    const res = await ingest(user, [itemAt('u1', 6, '2023-08-06T01:00:00Z'), itemAt('h1', 7, '2022-02-19T13:00:00Z')]);
    expect(res.matches).toEqual([
      { media_id: 'u1', matched: false, event_id: null, venue_id: 6 },
      { media_id: 'h1', matched: false, event_id: null, venue_id: null },
    ]);
    expect(res.matched).toBe(0);
    expect(res.events).toEqual([]);
  });
});

describe('history over HTTP', () => {
  it('re-sends are idempotent; a re-sent item that no longer matches drops its match', async () => {
    const user = await newUser('resend@example.com');
    const batch = [
      itemAt('r1', 1, '2024-07-13T00:00:00Z', 10),
      itemAt('r2', 1, '2024-07-13T00:00:00Z', -30, { media_type: 'video' }),
      itemAt('r3', 1, '2021-01-01T00:00:00Z'),
    ];
    const first = await ingest(user, batch);
    const second = await ingest(user, batch);
    expect(second.matches).toEqual(first.matches);
    expect(second.events).toEqual(first.events);
    expect(second.events[0]?.media?.map((m) => m.media_id)).toEqual(['r2', 'r1']);
    expect(second.events[0]?.media_count).toBe(2);
    expect(second.events[0]?.media?.[0]).toEqual({
      media_id: 'r2',
      taken_at: '2024-07-12T23:30:00.000Z',
      media_type: 'video',
    });
    const page = EventsPage.parse((await call('GET', `/users/${user}/events`)).json);
    expect(page.total).toBe(1);
    // r1 re-sent from elsewhere: its earlier match goes.
    await ingest(user, [{ ...itemAt('r1', 3, '2010-01-01T00:00:00Z') }]);
    const after = EventsPage.parse((await call('GET', `/users/${user}/events`)).json);
    expect(after.events[0]?.media?.map((m) => m.media_id)).toEqual(['r2']);
    await ingest(user, [{ ...itemAt('r2', 3, '2010-01-01T00:00:00Z') }]);
    expect(EventsPage.parse((await call('GET', `/users/${user}/events`)).json)).toEqual({
      events: [],
      has_more: false,
      next_cursor: null,
      total: 0,
    });
  });

  it('ingest events are complete: earlier batches are included', async () => {
    const user = await newUser('complete@example.com');
    await ingest(user, [itemAt('a', 1, '2024-07-13T00:00:00Z', 30)]);
    const second = await ingest(user, [itemAt('b', 1, '2024-07-13T00:00:00Z', 0)]);
    expect(second.events[0]?.media?.map((m) => m.media_id)).toEqual(['b', 'a']);
    expect(second.events[0]?.media_count).toBe(2);
  });

  it('keeps last_sync_at monotonic under concurrent batches', async () => {
    const user = await newUser('concurrent@example.com');
    const results = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        ingest(
          user,
          Array.from({ length: 50 }, (_, j) => itemAt(`c${i}-${j}`, 1, '2024-07-13T00:00:00Z', j)),
        ),
      ),
    );
    const stats = Stats.parse((await call('GET', `/users/${user}/stats`)).json);
    const max = results
      .map((r) => r.last_sync_at)
      .sort()
      .at(-1);
    expect(stats.last_sync_at).toBe(max);
    const page = EventsPage.parse((await call('GET', `/users/${user}/events`)).json);
    expect(page.events[0]?.media_count).toBe(600);
  });

  it('pages newest first to the end with no gap or duplicate, and refuses a tampered cursor', async () => {
    const user = await newUser('paging@example.com');
    const venueOf = (e: (typeof PAGING_EVENTS)[number]) =>
      e.venue_id === 20 ? { lat: 60.1699, lon: 24.9384 } : { lat: 60.2, lon: 24.9 };
    const items = PAGING_EVENTS.map((e) => {
      const v = venueOf(e);
      // 20:00 local in Helsinki (EET/EEST): 17:00Z or 18:00Z; 1 h after 17:00Z is inside both windows.
      const day = e.starts_at_local.slice(0, 10);
      return { id: `p${e.id}`, taken_at: `${day}T18:00:00Z`, latitude: v.lat, longitude: v.lon };
    });
    const res = await ingest(user, items);
    expect(res.matched).toBe(45);
    const seen: Event[] = [];
    let cursor: string | null = null;
    for (let i = 0; i < 30; i += 1) {
      const query: string = cursor
        ? `?limit=7&include_media=false&cursor=${encodeURIComponent(cursor)}`
        : '?limit=7&include_media=false';
      const page = EventsPage.parse((await call('GET', `/users/${user}/events${query}`)).json);
      expect(page.total).toBe(45);
      for (const event of page.events) expect(event).not.toHaveProperty('media');
      seen.push(...page.events);
      if (!page.has_more) {
        expect(page.next_cursor).toBeNull();
        break;
      }
      cursor = page.next_cursor;
      if (i === 0 && cursor) {
        const tampered = cursor.startsWith('e') ? `f${cursor.slice(1)}` : `e${cursor.slice(1)}`;
        expect(
          (await call('GET', `/users/${user}/events?cursor=${encodeURIComponent(tampered)}`)).json.error.code,
        ).toBe('invalid_cursor');
        const other = await newUser('paging-other@example.com');
        expect((await call('GET', `/users/${other}/events?cursor=${encodeURIComponent(cursor)}`)).json.error.code).toBe(
          'invalid_cursor',
        );
      }
    }
    expect(seen.map((e) => e.id).sort((a, b) => a - b)).toEqual(PAGING_EVENTS.map((e) => e.id));
    const keys = seen.map((e) => [e.starts_at_local, e.id] as const);
    for (let i = 1; i < keys.length; i += 1) {
      const [prevStart, prevId] = keys[i - 1]!;
      const [start, id] = keys[i]!;
      expect(prevStart > start || (prevStart === start && prevId > id)).toBe(true);
    }
    expect(seen.every((e) => e.media_count === 1)).toBe(true);
  });

  it('computes stats for a fresh user and a rich one', async () => {
    const fresh = await newUser('fresh@example.com');
    expect(Stats.parse((await call('GET', `/users/${fresh}/stats`)).json)).toEqual(FRESH_STATS);
    const rich = await newUser('rich@example.com');
    await ingest(rich, [
      itemAt('e1', 1, '2024-07-13T00:00:00Z'),
      itemAt('e2', 2, '2023-12-09T08:30:00Z'),
      itemAt('e3', 3, '2024-03-30T20:00:00Z'),
      itemAt('e4', 4, '2022-08-20T09:00:00Z'),
      itemAt('e5', 5, '2024-11-17T00:00:00Z'),
      itemAt('e8', 8, '2024-10-26T18:00:00Z'),
      itemAt('e1b', 1, '2024-07-13T00:00:00Z', 60),
      itemAt('u', 6, '2023-08-06T01:00:00Z'),
      itemAt('h', 7, '2022-02-19T13:00:00Z'),
    ]);
    await call('POST', `/users/${rich}/sync-complete`);
    const stats = Stats.parse((await call('GET', `/users/${rich}/stats`)).json);
    expect(stats).toMatchObject({
      total_events: 6,
      total_venues: 6,
      has_synced: true,
      sports_count: 2,
      concerts_count: 4,
      first_attended: '2022-08-20',
      most_recently_attended: '2024-11-16',
      busiest_year: '2024',
      top_season: 'summer',
      top_artist: 'The Example Band',
      top_genre: 'rock',
    });
    expect(stats.unique_venues.map((v) => v.venue.id).sort()).toEqual([1, 2, 3, 4, 5, 8]);
    const page = EventsPage.parse((await call('GET', `/users/${rich}/events?limit=100`)).json);
    expect(page.total).toBe(stats.total_events);
    expect(page.events.map((e) => e.id)).toEqual([5, 8, 1, 3, 2, 4]);
  });
});

describe('requests too malformed to reach the router', () => {
  /** Writes raw bytes on a fresh connection and returns everything the server sends back. */
  async function raw(text: string): Promise<string> {
    const { port } = new URL(baseUrl);
    const socket = connect(Number(port), '127.0.0.1');
    socket.setEncoding('utf8');
    let answer = '';
    socket.on('data', (chunk: string) => {
      answer += chunk;
    });
    socket.write(text);
    await once(socket, 'close');
    return answer;
  }
  const envelopeOf = (answer: string) => JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4));

  it('answers oversized headers with 431 request_header_too_large and the envelope', async () => {
    const answer = await raw(`GET /v1/ping HTTP/1.1\r\nHost: x\r\nX-Filler: ${'a'.repeat(20 * 1024)}\r\n\r\n`);
    expect(answer).toMatch(/^HTTP\/1\.1 431 /);
    expect(answer).toContain('Content-Type: application/json');
    expect(envelopeOf(answer)).toEqual({ error: { code: 'request_header_too_large', message: expect.any(String) } });
  });

  it('answers a request line that is not HTTP with 400 invalid_request and the envelope', async () => {
    const answer = await raw('NOT A REQUEST\r\n\r\n');
    expect(answer).toMatch(/^HTTP\/1\.1 400 /);
    expect(envelopeOf(answer)).toEqual({ error: { code: 'invalid_request', message: expect.any(String) } });
  });
});
