import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  ErrorEnvelope,
  HealthResponse,
  IngestResponse,
  PROFILE_MAX_LENGTH,
  UserCreateResponse,
} from '../../src/contract/index.js';
import { parseCatalog } from '../../src/service/catalog/index.js';
import { FRESH_STATS } from '../helpers/stats.js';
import { ACME, ACME_PROD, createUser, GLOBEX, itemAt, LIMITED, makeApp, type TestApp } from './helpers.js';

const EVENT1 = '2024-07-13T00:00:00Z';
let t: TestApp;
beforeEach(async () => {
  t = await makeApp();
});
afterEach(async () => {
  await t.close();
});

const post = (url: string, key: string | null, payload?: unknown, headers: Record<string, string> = {}) =>
  t.app.inject({
    method: 'POST',
    url,
    headers: { ...(key ? { 'x-partner-api-key': key } : {}), ...headers },
    ...(payload === undefined ? {} : { payload: typeof payload === 'string' ? payload : JSON.stringify(payload) }),
    ...(payload !== undefined && !headers['content-type']
      ? { headers: { ...(key ? { 'x-partner-api-key': key } : {}), 'content-type': 'application/json', ...headers } }
      : {}),
  });
const get = (url: string, key: string | null) =>
  t.app.inject({ method: 'GET', url, headers: key ? { 'x-partner-api-key': key } : {} });

function expectError(
  res: { statusCode: number; json(): unknown },
  status: number,
  code: string,
): Record<string, unknown> {
  expect(res.statusCode).toBe(status);
  const body = ErrorEnvelope.parse(res.json());
  expect(body.error.code).toBe(code);
  return body.error;
}

describe('open routes, auth and framework failures', () => {
  it('answers /ping without a key and /health with one', async () => {
    const ping = await get('/v1/ping', null);
    expect(ping.statusCode).toBe(200);
    expect(ping.json()).toEqual({ status: 'ok' });
    const health = await get('/v1/health', ACME_PROD);
    expect(HealthResponse.parse(health.json())).toEqual({
      status: 'ok',
      partner_id: 'acme',
      environment: 'production',
      rate_limit: { enabled: false, limit: null, window_seconds: null },
    });
    const limited = await get('/v1/health', LIMITED);
    expect(limited.json().rate_limit).toEqual({ enabled: true, limit: 3, window_seconds: 60 });
  });

  it('refuses a missing or wrong key with 401 before any user lookup', async () => {
    expectError(await get('/v1/health', null), 401, 'invalid_api_key');
    expectError(await get('/v1/health', 'sk_wrong'), 401, 'invalid_api_key');
    expectError(await get('/v1/users/00000000-0000-4000-8000-000000000000/stats', 'sk_wrong'), 401, 'invalid_api_key');
    expectError(await post('/v1/users', null, { email: 'a@example.com' }), 401, 'invalid_api_key');
  });

  it('answers unknown paths 404 not_found, known paths with another method 405', async () => {
    expectError(await get('/v1/nowhere', ACME), 404, 'not_found');
    expectError(await get('/ping', null), 404, 'not_found');
    expectError(await get('/v2/ping', null), 404, 'not_found');
    expectError(await get('/v1/users/x/unknown', ACME), 404, 'not_found');
    const wrong = await t.app.inject({ method: 'DELETE', url: '/v1/users', headers: { 'x-partner-api-key': ACME } });
    expectError(wrong, 405, 'method_not_allowed');
    expect(wrong.headers.allow).toBe('POST');
    expectError(await get('/v1/users/abc/media', ACME), 405, 'method_not_allowed');
    expectError(await post('/v1/ping', null, {}), 405, 'method_not_allowed');
    expectError(await t.app.inject({ method: 'PUT', url: '/v1/users/abc/events' }), 405, 'method_not_allowed');
  });

  it('answers 415 for non-JSON bodies and 400 invalid_request for malformed JSON', async () => {
    expectError(
      await post('/v1/users', ACME, 'email=a', { 'content-type': 'text/plain' }),
      415,
      'unsupported_media_type',
    );
    expectError(
      await post('/v1/users', ACME, '<x/>', { 'content-type': 'application/xml' }),
      415,
      'unsupported_media_type',
    );
    expectError(
      await post('/v1/users', ACME, '{"email":', { 'content-type': 'application/json' }),
      400,
      'invalid_request',
    );
    expectError(
      await post('/v1/users', ACME, '{"__proto__":{"x":1}}', { 'content-type': 'application/json' }),
      400,
      'invalid_request',
    );
    // Spelled with escapes, and the constructor form: the same 400.
    expectError(
      await post('/v1/users', ACME, '{"\\u005f_proto__":{"x":1}}', { 'content-type': 'application/json' }),
      400,
      'invalid_request',
    );
    expectError(
      await post('/v1/users', ACME, '{"email":"a@b.co","constructor":{"prototype":{"x":1}}}', {
        'content-type': 'application/json',
      }),
      400,
      'invalid_request',
    );
    expectError(
      await post('/v1/users', ACME, '{"email":"a@b.co",', { 'content-type': 'application/json' }),
      400,
      'invalid_request',
    );
    // A body with no Content-Type at all is a non-JSON body.
    const bare = await t.app.inject({
      method: 'POST',
      url: '/v1/users',
      headers: { 'x-partner-api-key': ACME },
      payload: Buffer.from('{"email":"a@b.co"}'),
    });
    expectError(bare, 415, 'unsupported_media_type');
  });

  it('answers 413 for a body over the byte limit', async () => {
    const huge = JSON.stringify({ media: [{ id: 'x'.repeat(9 * 1024 * 1024) }] });
    expectError(await post('/v1/users', ACME, huge), 413, 'payload_too_large');
  });

  it('rate limits per key with 429 rate_limited and an integer Retry-After; /ping and /health exempt', async () => {
    for (let i = 0; i < 3; i += 1)
      expect((await post('/v1/users', LIMITED, { email: `u${i}@example.com` })).statusCode).toBe(201);
    const limited = await post('/v1/users', LIMITED, { email: 'u9@example.com' });
    expectError(limited, 429, 'rate_limited');
    expect(String(limited.headers['retry-after'])).toMatch(/^\d+$/);
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    expect((await get('/v1/health', LIMITED)).statusCode).toBe(200);
    expect((await get('/v1/ping', null)).statusCode).toBe(200);
    // Another key is not affected; a key with no policy is never throttled.
    for (let i = 0; i < 10; i += 1)
      expect((await post('/v1/users', ACME, { email: `a${i}@example.com` })).statusCode).toBe(201);
  });
});

describe('users', () => {
  it('creates once per trimmed, case-insensitive e-mail (201 both times)', async () => {
    const first = await post('/v1/users', ACME, {
      email: '  Ann@Example.COM ',
      first_name: 'Ann',
      address: { city: 'Lyon' },
    });
    expect(first.statusCode).toBe(201);
    const a = UserCreateResponse.parse(first.json());
    expect(a.existing).toBe(false);
    const again = UserCreateResponse.parse((await post('/v1/users', ACME, { email: 'ann@example.com' })).json());
    expect(again).toEqual({ ...a, existing: true });
  });

  it('scopes users to (partner, environment)', async () => {
    const a = UserCreateResponse.parse((await post('/v1/users', ACME, { email: 'same@example.com' })).json());
    const prod = UserCreateResponse.parse((await post('/v1/users', ACME_PROD, { email: 'same@example.com' })).json());
    const other = UserCreateResponse.parse((await post('/v1/users', GLOBEX, { email: 'same@example.com' })).json());
    expect(new Set([a.user_id, prod.user_id, other.user_id]).size).toBe(3);
    expect(prod.existing || other.existing).toBe(false);
    for (const key of [ACME_PROD, GLOBEX]) {
      expectError(await get(`/v1/users/${a.user_id}/stats`, key), 404, 'user_not_found');
      expectError(await get(`/v1/users/${a.user_id}/events`, key), 404, 'user_not_found');
      expectError(await post(`/v1/users/${a.user_id}/media`, key, { media: [{ id: 'x' }] }), 404, 'user_not_found');
      expectError(await post(`/v1/users/${a.user_id}/sync-complete`, key), 404, 'user_not_found');
    }
    expect((await get(`/v1/users/${a.user_id}/stats`, ACME)).statusCode).toBe(200);
    expectError(await get('/v1/users/not-a-uuid/stats', ACME), 404, 'user_not_found');
    expectError(await get(`/v1/users/${'9'.repeat(900)}/stats`, ACME), 404, 'user_not_found');
  });

  it('rejects bad e-mails with invalid_email and bad members with invalid_request', async () => {
    for (const body of [{}, { email: '' }, { email: 'no-at-sign' }, { email: 42 }, { email: 'a@b' }]) {
      expectError(await post('/v1/users', ACME, body), 400, 'invalid_email');
    }
    expectError(await post('/v1/users', ACME, [1, 2]), 400, 'invalid_request');
    expectError(await post('/v1/users', ACME, { email: 'ok@example.com', first_name: 7 }), 400, 'invalid_request');
    expectError(await post('/v1/users', ACME, { email: 'ok@example.com', address: 'Paris' }), 400, 'invalid_request');
  });

  it('stores a phone number only when no other profile uses it, never failing', async () => {
    await post('/v1/users', ACME, { email: 'p1@example.com', phone_number: '+33 1 23' });
    const second = await post('/v1/users', ACME, { email: 'p2@example.com', phone_number: '+33 1 23' });
    expect(second.statusCode).toBe(201);
    const rows = [
      await t.store.findUser(UserCreateResponse.parse(second.json()).user_id, {
        partnerId: 'acme',
        environment: 'sandbox',
      }),
    ];
    expect(rows[0]?.phone_number).toBeNull();
  });

  it('ignores a phone number over PROFILE_MAX_LENGTH (never failing) and keeps one at the cap', async () => {
    const scope = { partnerId: 'acme', environment: 'sandbox' } as const;
    const stored = async (email: string, phone_number: string) => {
      const res = await post('/v1/users', ACME, { email, phone_number });
      expect(res.statusCode).toBe(201);
      return (await t.store.findUser(UserCreateResponse.parse(res.json()).user_id, scope))?.phone_number;
    };
    const atCap = '+'.padEnd(PROFILE_MAX_LENGTH.phone_number, '1');
    expect(await stored('long1@example.com', `${atCap}2`)).toBeNull();
    expect(await stored('long2@example.com', atCap)).toBe(atCap);
  });
});

describe('ingest validation', () => {
  let user: string;
  beforeEach(async () => {
    user = await createUser(t.app, ACME, 'ingest@example.com');
  });
  const media = (payload: unknown) => post(`/v1/users/${user}/media`, ACME, payload);

  it('fails the request for a bad batch shape', async () => {
    expectError(await media({}), 400, 'invalid_request');
    expectError(await media({ media: 'x' }), 400, 'invalid_request');
    expectError(await media([]), 400, 'invalid_request');
    expectError(await media({ media: [] }), 400, 'empty_batch');
    const big = await media({ media: Array.from({ length: 201 }, (_, i) => ({ id: `m${i}` })) });
    expectError(big, 413, 'invalid_batch_size');
    expect((await media({ media: Array.from({ length: 200 }, (_, i) => ({ id: `m${i}` })) })).statusCode).toBe(200);
    for (const [items, index] of [
      [[{ id: 'a' }, 5], 1],
      [[null], 0],
      [[{ id: 'a' }, { id: '' }], 1],
      [[{ id: 3 }], 0],
      [[[]], 0],
    ] as const) {
      const error = expectError(await media({ media: items }), 400, 'invalid_media_item');
      expect(error.details).toEqual({ index });
    }
  });

  it('rejects bad items one by one, counting accepted = sent - rejected', async () => {
    const items = [
      { ...itemAt('x', 1, EVENT1), id: 'l'.repeat(256) },
      { ...itemAt('lat', 1, EVENT1), latitude: 91 },
      { ...itemAt('when', 1, EVENT1), taken_at: 'yesterday' },
      { ...itemAt('local', 1, EVENT1), taken_at: '2024-07-13T00:00:00' },
      { ...itemAt('kind', 1, EVENT1), media_type: 'gif' },
      { ...itemAt('nocoords', 1, EVENT1), latitude: null },
      { ...itemAt('notime', 1, EVENT1), taken_at: undefined },
      { id: 'nothing' },
      itemAt('ok', 1, EVENT1),
      itemAt('far', 1, '2020-01-01T00:00:00Z'),
    ];
    const res = await media({ media: items });
    expect(res.statusCode).toBe(200);
    const body = IngestResponse.parse(res.json());
    expect(body.rejected).toEqual([
      { id: 'l'.repeat(256), reason: 'invalid' },
      { id: 'lat', reason: 'invalid' },
      { id: 'when', reason: 'invalid' },
      { id: 'local', reason: 'invalid' },
      { id: 'kind', reason: 'invalid' },
      { id: 'nocoords', reason: 'missing_coordinates' },
      { id: 'notime', reason: 'missing_taken_at' },
      // Both missing: coordinates are reported first.
      { id: 'nothing', reason: 'missing_coordinates' },
    ]);
    expect(body.accepted).toBe(2);
    expect(body.matched).toBe(1);
    expect(body.matches).toEqual([
      { media_id: 'ok', matched: true, event_id: 1, venue_id: null },
      { media_id: 'far', matched: false, event_id: null, venue_id: null },
    ]);
  });

  it('keeps one stored match per id when a batch repeats it (the last copy wins)', async () => {
    const res = await media({
      media: [itemAt('dup', 1, EVENT1), itemAt('dup', 1, EVENT1, 5, { thumbnail_url: 'https://cdn.example/t.jpg' })],
    });
    const body = IngestResponse.parse(res.json());
    expect(body.accepted).toBe(2);
    expect(body.matched).toBe(2);
    expect(body.events).toHaveLength(1);
    expect(body.events[0]?.media).toEqual([
      {
        media_id: 'dup',
        taken_at: '2024-07-13T00:05:00.000Z',
        media_type: 'photo',
        thumbnail_url: 'https://cdn.example/t.jpg',
      },
    ]);
  });

  it('sync-complete takes no body or {} and marks has_synced', async () => {
    const stats0 = (await get(`/v1/users/${user}/stats`, ACME)).json();
    expect(stats0.has_synced).toBe(false);
    expect(stats0.last_sync_at).toBeNull();
    expectError(await post(`/v1/users/${user}/sync-complete`, ACME, { full: true }), 400, 'invalid_request');
    expectError(await post(`/v1/users/${user}/sync-complete`, ACME, [1]), 400, 'invalid_request');
    const empty = await post(`/v1/users/${user}/sync-complete`, ACME, {});
    expect(empty.statusCode).toBe(200);
    const none = await post(`/v1/users/${user}/sync-complete`, ACME);
    expect(none.json()).toEqual({ has_synced: true, last_sync_at: '2025-01-01T00:00:00.000Z' });
    expect((await get(`/v1/users/${user}/stats`, ACME)).json()).toMatchObject({
      has_synced: true,
      last_sync_at: '2025-01-01T00:00:00.000Z',
    });
  });

  it('never moves last_sync_at backwards', async () => {
    t.setNow(Date.parse('2025-03-01T00:00:00Z'));
    const later = IngestResponse.parse((await media({ media: [itemAt('a', 1, EVENT1)] })).json());
    t.setNow(Date.parse('2025-02-01T00:00:00Z'));
    const earlier = IngestResponse.parse((await media({ media: [itemAt('b', 1, EVENT1)] })).json());
    expect(later.last_sync_at).toBe('2025-03-01T00:00:00.000Z');
    expect(earlier.last_sync_at).toBe('2025-03-01T00:00:00.000Z');
    const synced = await post(`/v1/users/${user}/sync-complete`, ACME);
    expect(synced.json().last_sync_at).toBe('2025-03-01T00:00:00.000Z');
  });
});

describe('events query', () => {
  it('validates limit, include_media and cursor', async () => {
    const user = await createUser(t.app, ACME, 'q@example.com');
    const url = `/v1/users/${user}/events`;
    for (const query of [
      'limit=0',
      'limit=101',
      'limit=abc',
      'limit=2.5',
      'limit=-1',
      'include_media=yes',
      'include_media=',
      'limit=1&limit=2',
    ]) {
      expectError(await get(`${url}?${query}`, ACME), 400, 'invalid_request');
    }
    for (const query of [
      'limit=1',
      'limit=100',
      'include_media=true',
      'include_media=false',
      'include_media=1',
      'include_media=0',
    ]) {
      expect((await get(`${url}?${query}`, ACME)).statusCode).toBe(200);
    }
    expectError(await get(`${url}?cursor=abc`, ACME), 400, 'invalid_cursor');
    expectError(await get(`${url}?cursor=eyJzIjoxLCJpIjoxfQ.AAAA`, ACME), 400, 'invalid_cursor');
    expect((await get(url, ACME)).json()).toEqual({ events: [], has_more: false, next_cursor: null, total: 0 });
  });
});

describe('an empty catalog', () => {
  it('answers every accepted item unmatched and keeps the stats of a fresh profile', async () => {
    const empty = await makeApp({ catalog: parseCatalog({ venues: [], performers: [], events: [] }) });
    try {
      const user = await createUser(empty.app, ACME, 'empty@example.com');
      const headers = { 'x-partner-api-key': ACME, 'content-type': 'application/json' };
      const items = [itemAt('a', 1, EVENT1), itemAt('b', 3, '2024-03-30T19:00:00Z', 30), { id: 'c' }];
      const res = await empty.app.inject({
        method: 'POST',
        url: `/v1/users/${user}/media`,
        headers,
        payload: JSON.stringify({ media: items }),
      });
      expect(res.statusCode).toBe(200);
      const body = IngestResponse.parse(res.json());
      expect(body.accepted).toBe(2);
      expect(body.matched).toBe(0);
      expect(body.rejected).toEqual([{ id: 'c', reason: 'missing_coordinates' }]);
      expect(body.matches).toEqual([
        { media_id: 'a', matched: false, event_id: null, venue_id: null },
        { media_id: 'b', matched: false, event_id: null, venue_id: null },
      ]);
      expect(body.events).toEqual([]);
      const stats = await empty.app.inject({ method: 'GET', url: `/v1/users/${user}/stats`, headers });
      expect(stats.statusCode).toBe(200);
      expect(stats.json()).toEqual({ ...FRESH_STATS, last_sync_at: body.last_sync_at });
      const events = await empty.app.inject({ method: 'GET', url: `/v1/users/${user}/events`, headers });
      expect(events.json()).toEqual({ events: [], has_more: false, next_cursor: null, total: 0 });
    } finally {
      await empty.close();
    }
  });
});
