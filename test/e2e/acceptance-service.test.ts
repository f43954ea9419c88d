/**
 * Black-box conformance of `camroll serve` (the real binary over real HTTP) against the
 * partner contract and docs/contract/product-decisions.md §2: start-up, keys and catalog files, signals,
 * paths, auth order, content types, user creation, per-item validation, ingest arithmetic,
 * sync markers, paging and stats. Finer in-process cases live in test/service/*.
 */
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { connect } from 'node:net';
import { readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ErrorEnvelope,
  EventsPage,
  HealthResponse,
  IngestResponse,
  Stats,
  type Event,
} from '../../src/contract/index.js';
import { collect, spawnCamroll, type RunResult } from './helpers/camroll.js';
import { useTempHomes } from './helpers/temp-homes.js';
import { createResponseCheck } from '../service/contract-check.js';
import { withTestStore } from './helpers/store.js';

const SANDBOX = 'sk_acc_acme_sandbox';
const PRODUCTION = 'sk_acc_acme_production';
const GLOBEX = 'sk_acc_globex_sandbox';
const LIMITED = 'sk_acc_limited_partner';
const KEYS = [
  { key: SANDBOX, partner_id: 'acme', environment: 'sandbox' },
  { key: PRODUCTION, partner_id: 'acme', environment: 'production' },
  { key: GLOBEX, partner_id: 'globex', environment: 'sandbox', rate_limit: null },
  { key: LIMITED, partner_id: 'limited', environment: 'sandbox', rate_limit: { limit: 2, window_seconds: 3600 } },
];

const MSG = { lat: 40.7505, lon: -73.9934 };
const SYDNEY = { lat: -33.8568, lon: 151.2153 };
const HALL = { lat: 10, lon: 10 };
/** Start of event 100 at Madison Square Garden (20:00 EDT). */
const AT = '2024-07-13T00:00:00Z';
/** 25 events on consecutive January days at a UTC venue: enough for two default pages. */
const PAGING = Array.from({ length: 25 }, (_, i) => ({
  id: 200 + i,
  name: `Night ${i + 1}`,
  kind: 'other',
  venue_id: 3,
  starts_at_local: `2021-01-${String(i + 1).padStart(2, '0')}T20:00:00`,
  performers: [],
}));
const CATALOG = {
  venues: [
    {
      id: 1,
      name: 'Madison Square Garden',
      city: 'New York',
      region: 'NY',
      country: 'US',
      latitude: MSG.lat,
      longitude: MSG.lon,
      radius_m: 250,
      timezone: 'America/New_York',
      capacity: 20000,
    },
    { id: 2, name: 'Sydney Opera House', latitude: SYDNEY.lat, longitude: SYDNEY.lon, timezone: 'Australia/Sydney' },
    { id: 3, name: 'Paging Hall', latitude: HALL.lat, longitude: HALL.lon, radius_m: 300, timezone: 'UTC' },
  ],
  performers: [
    { id: 7, name: 'The Example Band', category: 'rock', image_url: null, founded: 1999 },
    { id: 8, name: 'Alpha City', category: 'Example League', image_url: 'https://img.example/alpha.png' },
    { id: 9, name: 'Beta United', category: 'Example League' },
  ],
  events: [
    // 20:00 EDT = 2024-07-13T00:00Z
    {
      id: 100,
      name: 'The Example Band live',
      kind: 'concert',
      venue_id: 1,
      starts_at_local: '2024-07-12T20:00:00',
      performers: [{ id: 7, is_headliner: true }],
      licensed: true,
      hidden: false,
      promoter: 'x',
    },
    {
      id: 101,
      name: 'Unlicensed night',
      kind: 'concert',
      venue_id: 1,
      starts_at_local: '2024-08-12T20:00:00',
      licensed: false,
    },
    {
      id: 102,
      name: 'Hidden night',
      kind: 'concert',
      venue_id: 1,
      starts_at_local: '2024-09-12T20:00:00',
      hidden: true,
    },
    // 19:00 AEDT = 2024-01-10T08:00Z; January south of the equator is summer.
    {
      id: 103,
      name: 'The Example Band at the Opera House',
      kind: 'concert',
      venue_id: 2,
      starts_at_local: '2024-01-10T19:00:00',
      performers: [{ id: 7, is_headliner: true }],
    },
    // 19:00 EST = 2023-12-02T00:00Z
    {
      id: 104,
      name: 'Alpha City vs Beta United',
      kind: 'sport',
      venue_id: 1,
      starts_at_local: '2023-12-01T19:00:00',
      performers: [{ id: 8 }, { id: 9 }],
    },
    ...PAGING,
  ],
  generated_by: 'acceptance test',
};

const home = useTempHomes('camroll-acceptance-');
function writeJson(dir: string, name: string, value: unknown): string {
  const file = join(dir, name);
  writeFileSync(file, typeof value === 'string' ? value : JSON.stringify(value));
  return file;
}

interface Launched {
  baseUrl: string;
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  /** Resolves with the exit result (bounded). */
  done: Promise<RunResult>;
}

/** Resolves once the service's stderr holds `text` (bounded by the test's timeout). */
function stderrShows(svc: Launched, text: string): Promise<void> {
  return new Promise((resolve) => {
    const check = () => {
      if (!svc.stderr().includes(text)) return;
      svc.child.stderr!.off('data', check);
      resolve();
    };
    svc.child.stderr!.on('data', check);
    check();
  });
}

/** Starts `camroll serve` and waits for its `listening on` line (bounded). */
async function launch(args: string[], env: NodeJS.ProcessEnv): Promise<Launched> {
  const child = spawnCamroll(['serve', '--host', '127.0.0.1', '--port', '0', ...withTestStore(args)], { env });
  let out = '';
  let err = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  const done = collect(child, 5 * 60_000);
  const baseUrl = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`serve did not start: ${out}${err}`)), 60_000);
    const check = () => {
      const m = /^listening on (\S+)$/m.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    };
    child.stdout!.on('data', check);
    done.then(
      () => {
        clearTimeout(timer);
        reject(new Error(`serve exited before listening: ${out}${err}`));
      },
      () => undefined,
    );
  });
  return { baseUrl, child, stdout: () => out, stderr: () => err, done };
}

const contract = createResponseCheck();
/** Answers outside the OpenAPI document, checked once all tests ran. */
const contractViolations: string[] = [];
afterAll(() => {
  expect(contractViolations, 'responses outside the OpenAPI document').toEqual([]);
});

interface Reply {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
  json: any;
}

/** One HTTP request with exact control of headers (node:http adds no Content-Type). */
function send(
  url: string,
  options: {
    method?: string;
    key?: string | null;
    body?: unknown;
    raw?: string;
    contentType?: string | null;
    headers?: Record<string, string>;
  } = {},
): Promise<Reply> {
  const headers: Record<string, string> = { ...(options.headers ?? {}) };
  if (options.key) headers['x-partner-api-key'] = options.key;
  let payload: string | undefined;
  if (options.raw !== undefined) payload = options.raw;
  else if (options.body !== undefined) payload = JSON.stringify(options.body);
  if (payload !== undefined) {
    const type = options.contentType === undefined ? 'application/json' : options.contentType;
    if (type !== null) headers['content-type'] = type;
    headers['content-length'] = String(Buffer.byteLength(payload));
  }
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      url,
      { method: options.method ?? (payload === undefined ? 'GET' : 'POST'), headers, agent: false },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => (text += d));
        res.on('end', () => {
          let json: unknown;
          try {
            json = text ? JSON.parse(text) : undefined;
          } catch {
            json = undefined;
          }
          // Every answer of the real binary is checked against the OpenAPI document too.
          const path = new URL(url).pathname + new URL(url).search;
          const method = options.method ?? (payload === undefined ? 'GET' : 'POST');
          if (text !== '')
            contractViolations.push(
              ...contract.check({ method, url: path, status: res.statusCode ?? 0, headers: res.headers, body: text }),
            );
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json });
        });
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

function expectError(reply: Reply, status: number, code: string): void {
  expect({ status: reply.status, code: reply.json?.error?.code }, reply.text).toEqual({ status, code });
  const envelope = ErrorEnvelope.parse(reply.json);
  expect(typeof envelope.error.message).toBe('string');
}

const item = (id: string, at: { lat: number; lon: number }, takenAt: string, extra: Record<string, unknown> = {}) => ({
  id,
  taken_at: takenAt,
  latitude: at.lat,
  longitude: at.lon,
  ...extra,
});

let server: Launched;
let base = '';
let catalogFile = '';
let keysFile = '';
const api = (path: string, options: Parameters<typeof send>[1] = {}) =>
  send(`${base}${path}`, { key: SANDBOX, ...options });
async function newUser(email: string, key = SANDBOX): Promise<string> {
  const reply = await api('/users', { key, body: { email } });
  expect(reply.status).toBe(201);
  return reply.json.user_id as string;
}

beforeAll(async () => {
  const h = home();
  catalogFile = writeJson(h.dir, 'catalog.json', CATALOG);
  keysFile = writeJson(h.dir, 'keys.json', KEYS);
  server = await launch(['--db', ':memory:', '--catalog', catalogFile, '--keys', keysFile], h.env);
  base = server.baseUrl;
}, 120_000);

afterAll(async () => {
  if (server && server.child.exitCode === null) {
    server.child.kill('SIGTERM');
    await server.done;
  }
});

describe('start-up, files and signals', () => {
  it('prints exactly "listening on http://HOST:PORT/v1" with a keys file, and never a key', () => {
    expect(base).toMatch(/^http:\/\/127\.0\.0\.1:[1-9]\d*\/v1$/);
    expect(server.stdout()).toBe(`listening on ${base}\n`);
    for (const entry of KEYS) expect(server.stdout() + server.stderr()).not.toContain(entry.key);
  });

  // Long enough to be accepted: each case below is refused for what its label says.
  const X1 = 'sk_x1_acceptance_key';
  const badKeys: Array<[string, unknown, RegExp]> = [
    ['an unknown environment', [{ key: X1, partner_id: 'a', environment: 'staging' }], /environment/],
    [
      'a repeated key',
      [
        { key: X1, partner_id: 'a', environment: 'sandbox' },
        { key: X1, partner_id: 'b', environment: 'production' },
      ],
      /repeat/,
    ],
    ['an object instead of an array', { key: X1, partner_id: 'a', environment: 'sandbox' }, /array/],
    ['no key at all', [], /no key/],
    ['a missing partner_id', [{ key: X1, environment: 'sandbox' }], /partner_id/],
    [
      'a zero rate limit',
      [{ key: X1, partner_id: 'a', environment: 'sandbox', rate_limit: { limit: 0, window_seconds: 60 } }],
      /rate_limit/,
    ],
    [
      'a production key shorter than 16 characters (the entry named, never the key)',
      [
        { key: X1, partner_id: 'a', environment: 'sandbox' },
        { key: 'sk_x1_short', partner_id: 'b', environment: 'production' },
      ],
      /at entry 1 \(key\): a production key is shorter than 16 characters/,
    ],
    ['text that is not JSON', `${X1},a,sandbox`, /not valid JSON/],
  ];
  it.each(badKeys)(
    'refuses a keys file with %s: exit 1, a clear message, no key echoed',
    async (_label, content, message) => {
      const h = home();
      const file = writeJson(h.dir, 'keys.json', content);
      const result = await collect(
        spawnCamroll(['serve', '--port', '0', '--db', ':memory:', '--catalog', catalogFile, '--keys', file], {
          env: h.env,
        }),
      );
      expect(result.code).toBe(1);
      expect(result.stdout).not.toContain('listening on');
      expect(result.stderr).toMatch(/keys file/);
      expect(result.stderr).toMatch(message);
      expect(result.stderr).not.toContain('sk_x1');
    },
  );

  it('refuses a keys file that does not exist (exit 1)', async () => {
    const h = home();
    const result = await collect(
      spawnCamroll(
        ['serve', '--port', '0', '--db', ':memory:', '--catalog', catalogFile, '--keys', join(h.dir, 'missing.json')],
        { env: h.env },
      ),
    );
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/keys file/);
  });

  const badCatalogs: Array<[string, (c: any) => unknown, RegExp]> = [
    ['an unknown kind', (c) => void (c.events[2].kind = 'party'), /events\[2\].*102.*kind/],
    ['a venue that does not exist', (c) => void (c.events[1].venue_id = 99), /events\[1\].*101.*venue_id 99/],
    ['an unknown time zone', (c) => void (c.venues[1].timezone = 'Mars/Base'), /venues\[1\].*timezone/],
    [
      'an offset in starts_at_local',
      (c) => void (c.events[3].starts_at_local = '2024-01-10T19:00:00Z'),
      /events\[3\].*starts_at_local/,
    ],
    ['a latitude out of range', (c) => void (c.venues[0].latitude = 200), /venues\[0\].*latitude/],
    ['a repeated venue id', (c) => void c.venues.push({ ...c.venues[0] }), /venues\[3\].*duplicate/],
    ['a performer that does not exist', (c) => void (c.events[0].performers = [{ id: 77 }]), /events\[0\].*77/],
    ['licensed that is not a boolean', (c) => void (c.events[0].licensed = 'yes'), /events\[0\].*licensed/],
  ];
  it.each(badCatalogs)(
    'stops start-up on a catalog with %s, naming the first bad entry (exit 1)',
    async (_label, spoil, message) => {
      const h = home();
      const copy = JSON.parse(JSON.stringify(CATALOG));
      spoil(copy);
      const file = writeJson(h.dir, 'catalog.json', copy);
      const result = await collect(
        spawnCamroll(['serve', '--port', '0', '--db', ':memory:', '--catalog', file, '--keys', keysFile], {
          env: h.env,
        }),
      );
      expect(result.code).toBe(1);
      expect(result.stdout).not.toContain('listening on');
      expect(result.stderr).toMatch(message);
    },
  );

  it('stops start-up on a catalog that is not JSON, or not an object of arrays (exit 1)', async () => {
    const h = home();
    for (const content of ['{"venues": [', '[1, 2]']) {
      const file = writeJson(h.dir, 'catalog.json', content);
      const result = await collect(
        spawnCamroll(['serve', '--port', '0', '--db', ':memory:', '--catalog', file, '--keys', keysFile], {
          env: h.env,
        }),
      );
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(/catalog/);
    }
  });

  it.each(['SIGINT', 'SIGTERM'] as const)(
    'without --keys prints a working local key, keeps nothing on disk with :memory:, and exits 0 on %s',
    async (signal) => {
      const h = home();
      const local = await launch(['--db', ':memory:', '--catalog', catalogFile], h.env);
      const key = /^local key: (\S+)$/m.exec(local.stdout())?.[1];
      expect(key).toBeTruthy();
      const health = await send(`${local.baseUrl}/health`, { key });
      expect(HealthResponse.parse(health.json)).toEqual({
        status: 'ok',
        partner_id: 'local',
        environment: 'sandbox',
        rate_limit: { enabled: false, limit: null, window_seconds: null },
      });
      local.child.kill(signal);
      const result = await local.done;
      expect(result.code).toBe(0);
      expect(result.stderr).not.toContain(key!);
      const files = (dir: string): string[] =>
        readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
          entry.isDirectory() ? files(join(dir, entry.name)) : [join(dir, entry.name)],
        );
      const written = files(h.dir).filter((file) => !file.endsWith('catalog.json') && !file.endsWith('keys.json'));
      expect(written).toEqual([]);
    },
  );

  it('finishes a request in flight when SIGTERM arrives, then exits 0', async () => {
    const h = home();
    const svc = await launch(['--db', join(h.dir, 'service.db'), '--catalog', catalogFile, '--keys', keysFile], h.env);
    const url = new URL(svc.baseUrl);
    const body = JSON.stringify({ email: 'in-flight@example.com' });
    const socket = connect(Number(url.port), url.hostname);
    await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
    let answer = '';
    socket.setEncoding('utf8').on('data', (d: string) => (answer += d));
    const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
    socket.write(
      `POST /v1/users HTTP/1.1\r\nHost: ${url.host}\r\nx-partner-api-key: ${SANDBOX}\r\ncontent-type: ` +
        `application/json\r\n` +
        `content-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body.slice(0, 6)}`,
    );
    // One round trip on another connection, so the service has read the first one's headers.
    expect((await send(`${svc.baseUrl}/ping`)).status).toBe(200);
    svc.child.kill('SIGTERM');
    await stderrShows(svc, 'stopping');
    expect(svc.stderr()).toContain('stopping');
    socket.end(body.slice(6));
    await closed;
    expect(answer).toMatch(/^HTTP\/1\.1 201 /);
    expect(JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4))).toMatchObject({ existing: false });
    const result = await svc.done;
    expect(result.code).toBe(0);
    expect(statSync(join(h.dir, 'service.db')).size).toBeGreaterThan(0);
  });
});

describe('paths, methods and the order of checks', () => {
  it('answers /ping with {"status":"ok"} without a key, HEAD with no body', async () => {
    const ping = await send(`${base}/ping`);
    expect(ping.status).toBe(200);
    expect(ping.headers['content-type']).toMatch(/^application\/json/);
    expect(ping.json).toEqual({ status: 'ok' });
    const head = await send(`${base}/ping`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.text).toBe('');
    expect((await send(`${base}/ping?probe=1`)).json).toEqual({ status: 'ok' });
  });

  it.each([
    [SANDBOX, 'acme', 'sandbox', { enabled: false, limit: null, window_seconds: null }],
    [PRODUCTION, 'acme', 'production', { enabled: false, limit: null, window_seconds: null }],
    [GLOBEX, 'globex', 'sandbox', { enabled: false, limit: null, window_seconds: null }],
    [LIMITED, 'limited', 'sandbox', { enabled: true, limit: 2, window_seconds: 3600 }],
  ])('GET /health echoes the key %s: partner, environment and policy', async (key, partner, environment, policy) => {
    const reply = await send(`${base}/health`, { key });
    expect(reply.status).toBe(200);
    expect(HealthResponse.parse(reply.json)).toEqual({
      status: 'ok',
      partner_id: partner,
      environment,
      rate_limit: policy,
    });
  });

  const uuid = '00000000-0000-4000-8000-000000000000';
  const long = 'a'.repeat(5000);
  const cases: Array<[string, string, string | null, number, string]> = [
    ['GET', '/health', null, 401, 'invalid_api_key'],
    ['GET', '/health', 'sk_not_configured', 401, 'invalid_api_key'],
    ['HEAD', '/health', null, 401, ''],
    ['GET', `/users/${uuid}/stats`, null, 401, 'invalid_api_key'],
    ['GET', `/users/${uuid}/events`, 'sk_not_configured', 401, 'invalid_api_key'],
    ['GET', `/users/${long}/stats`, null, 401, 'invalid_api_key'],
    ['GET', `/users/${long}/stats`, SANDBOX, 404, 'user_not_found'],
    ['GET', `/users/not-a-uuid/events`, SANDBOX, 404, 'user_not_found'],
    ['GET', `/users/${uuid}/stats`, SANDBOX, 404, 'user_not_found'],
    ['GET', `/users/${uuid.replace(/-/g, '')}/stats`, SANDBOX, 404, 'user_not_found'],
    ['POST', `/users/not-a-uuid/sync-complete`, SANDBOX, 404, 'user_not_found'],
    ['HEAD', `/users/${uuid}/events`, SANDBOX, 404, ''],
    ['GET', '/ping/', null, 404, 'not_found'],
    ['GET', '/health/', SANDBOX, 404, 'not_found'],
    ['GET', `/users/${uuid}/stats/`, SANDBOX, 404, 'not_found'],
    ['GET', '/users/x/unknown', SANDBOX, 404, 'not_found'],
    ['GET', '', SANDBOX, 404, 'not_found'],
    ['GET', '/', SANDBOX, 404, 'not_found'],
    ['OPTIONS', '/ping', null, 405, 'method_not_allowed'],
    ['DELETE', '/users', SANDBOX, 405, 'method_not_allowed'],
    ['PUT', `/users/${uuid}/media`, SANDBOX, 405, 'method_not_allowed'],
    ['GET', '/users', SANDBOX, 405, 'method_not_allowed'],
    ['POST', '/health', SANDBOX, 405, 'method_not_allowed'],
  ];
  it.each(cases)('%s {base}%s with key %s -> %i %s', async (method, path, key, status, code) => {
    const reply = await send(`${base}${path}`, { method, key });
    expect(reply.status).toBe(status);
    if (method === 'HEAD') expect(reply.text).toBe('');
    else expectError(reply, status, code);
    if (status === 405) expect(reply.headers.allow).toBeTruthy();
  });

  it('answers 404 not_found for paths outside the version prefix, with or without a key', async () => {
    const root = base.replace(/\/v1$/, '');
    for (const path of ['/ping', '/health', '/users', '/v2/ping', '/v1ping', '/']) {
      expectError(await send(`${root}${path}`), 404, 'not_found');
      expectError(
        await send(`${root}${path}`, {
          key: SANDBOX,
          method: path === '/users' ? 'POST' : 'GET',
          ...(path === '/users' ? { body: { email: 'x@example.com' } } : {}),
        }),
        404,
        'not_found',
      );
    }
  });

  it('checks the key before the content type, the body and the user', async () => {
    const user = await newUser('order@example.com');
    expectError(await api('/users', { key: null, raw: 'email=a', contentType: 'text/plain' }), 401, 'invalid_api_key');
    expectError(await api(`/users/${user}/media`, { key: null, raw: '{broken' }), 401, 'invalid_api_key');
    expectError(await api(`/users/${user}/media`, { key: 'sk_wrong', body: { media: [] } }), 401, 'invalid_api_key');
    expectError(await api(`/users/${user}/sync-complete`, { key: null, method: 'POST' }), 401, 'invalid_api_key');
    // With a valid key: a user under another key is simply unknown.
    expectError(
      await api(`/users/${user}/media`, { key: GLOBEX, body: { media: [item('a', MSG, '2024-07-13T00:00:00Z')] } }),
      404,
      'user_not_found',
    );
  });
});

describe('content types', () => {
  it.each([
    ['text/plain', 'email=a@example.com'],
    ['application/x-www-form-urlencoded', 'email=a%40example.com'],
    ['application/xml', '<email>a@example.com</email>'],
    ['application/vnd.api+json', '{"email":"a@example.com"}'],
    ['text/json', '{"email":"a@example.com"}'],
    [null, '{"email":"a@example.com"}'],
  ])('refuses a body sent as %s with 415 unsupported_media_type', async (contentType, raw) => {
    expectError(await api('/users', { raw, contentType }), 415, 'unsupported_media_type');
    const user = await newUser('ct-media@example.com');
    expectError(await api(`/users/${user}/media`, { raw, contentType }), 415, 'unsupported_media_type');
  });

  it.each([
    'application/json',
    'application/json; charset=utf-8',
    'Application/JSON',
    'application/json;charset=UTF-8',
  ])('accepts a JSON body sent as %s', async (contentType) => {
    const reply = await api('/users', { raw: JSON.stringify({ email: 'ct@example.com' }), contentType });
    expect(reply.status).toBe(201);
  });

  it('takes sync-complete with no body, with an empty JSON body, or {}; a stray content type without a body is fine', async () => {
    const user = await newUser('sync-bodies@example.com');
    for (const options of [
      { method: 'POST' },
      { raw: '', contentType: 'application/json' },
      { body: {} },
      { method: 'POST', headers: { 'content-type': 'text/plain' } },
    ]) {
      const reply = await api(`/users/${user}/sync-complete`, options);
      expect(reply.status, reply.text).toBe(200);
      expect(reply.json).toEqual({ has_synced: true, last_sync_at: expect.any(String) });
    }
    expectError(
      await api(`/users/${user}/sync-complete`, { raw: 'done', contentType: 'text/plain' }),
      415,
      'unsupported_media_type',
    );
    for (const body of [{ full: true }, [], 'done', 1, null])
      expectError(await api(`/users/${user}/sync-complete`, { body }), 400, 'invalid_request');
  });

  it('answers malformed JSON with 400 invalid_request', async () => {
    expectError(await api('/users', { raw: '{"email": ' }), 400, 'invalid_request');
    expectError(await api('/users', { raw: "{'email': 'a@example.com'}" }), 400, 'invalid_request');
  });
});

describe('POST /users', () => {
  it.each([
    ['an array', [{ email: 'a@example.com' }]],
    ['a string', 'a@example.com'],
    ['a number', 42],
    ['null', null],
    ['true', true],
  ])('refuses a body that is %s with 400 invalid_request', async (_label, body) => {
    expectError(await api('/users', { body }), 400, 'invalid_request');
  });

  it.each([
    [''],
    ['   '],
    ['plain'],
    ['a@b'],
    ['@example.com'],
    ['a@'],
    ['a@@example.com'],
    ['a b@example.com'],
    ['a@example..com'],
    [`${'x'.repeat(250)}@example.com`],
  ])('refuses the e-mail %j with 400 invalid_email', async (email) => {
    expectError(await api('/users', { body: { email } }), 400, 'invalid_email');
  });

  it('accepts addresses RFC 5321/6531 accept, one profile per normalised address', async () => {
    for (const email of [
      'jörg@example.de',
      'user@müller.de',
      'a#b@example.com',
      '用户@例子.广告',
      '"john doe"@example.com',
    ]) {
      const created = await api('/users', { body: { email } });
      expect(created.status, `${email}: ${created.text}`).toBe(201);
      const again = await api('/users', { body: { email: `  ${email.toUpperCase()} ` } });
      expect({ id: again.json.user_id, existing: again.json.existing }).toEqual({
        id: created.json.user_id,
        existing: true,
      });
    }
  });

  it('refuses a missing or non-string e-mail with 400 invalid_email', async () => {
    for (const body of [{}, { email: null }, { email: 7 }, { email: ['a@example.com'] }, { first_name: 'Ann' }]) {
      expectError(await api('/users', { body }), 400, 'invalid_email');
    }
  });

  it(
    'answers 201 for new and existing profiles; identity is the trimmed, case-insensitive e-mail within (partner, ' +
      'environment)',
    async () => {
      const first = await api('/users', { body: { email: '  Mixed.Case+tag@Example.COM ', first_name: 'Ann' } });
      expect(first.status).toBe(201);
      expect(first.json).toEqual({
        user_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
        existing: false,
        created_at: expect.any(String),
      });
      expect(Number.isNaN(Date.parse(first.json.created_at))).toBe(false);
      const again = await api('/users', { body: { email: 'mixed.case+tag@example.com', first_name: 'Other' } });
      expect(again.status).toBe(201);
      expect(again.json).toEqual({ ...first.json, existing: true });
      const production = await api('/users', { key: PRODUCTION, body: { email: 'mixed.case+tag@example.com' } });
      const globex = await api('/users', { key: GLOBEX, body: { email: 'mixed.case+tag@example.com' } });
      expect([production.json.existing, globex.json.existing]).toEqual([false, false]);
      expect(new Set([first.json.user_id, production.json.user_id, globex.json.user_id]).size).toBe(3);
      for (const key of [PRODUCTION, GLOBEX]) {
        expectError(await api(`/users/${first.json.user_id}/stats`, { key }), 404, 'user_not_found');
        expectError(await api(`/users/${first.json.user_id}/events`, { key }), 404, 'user_not_found');
        expectError(
          await api(`/users/${first.json.user_id}/sync-complete`, { key, method: 'POST' }),
          404,
          'user_not_found',
        );
      }
      // The path id is matched case-insensitively, like any UUID.
      expect((await api(`/users/${String(first.json.user_id).toUpperCase()}/stats`)).status).toBe(200);
    },
  );

  it('accepts null and unknown members, ignores a query string, and never fails on a phone number', async () => {
    const full = {
      email: 'members@example.com',
      partner_user_id: null,
      first_name: null,
      last_name: 'Doe',
      address: { city: 'Lyon', region: null, postal_code: '69001', country: 'FR' },
      nickname: 'ignored',
    };
    expect((await api('/users?source=test', { body: full })).status).toBe(201);
    expect((await api('/users', { body: { email: 'phone1@example.com', phone_number: '+1 555 0100' } })).status).toBe(
      201,
    );
    const reused = await api('/users', { body: { email: 'phone2@example.com', phone_number: '+1 555 0100' } });
    expect(reused.status).toBe(201);
    expect(reused.json.existing).toBe(false);
    for (const [i, phone_number] of [5550100, '', { n: 1 }, null].entries()) {
      expect((await api('/users', { body: { email: `phone-odd${i}@example.com`, phone_number } })).status).toBe(201);
    }
  });
});

describe('POST /users/{id}/media', () => {
  it('rejects bad members per item with `invalid`, keeps the arithmetic, and matches the rest', async () => {
    const user = await newUser('items@example.com');
    const items = [
      item('z-utc', MSG, AT, { thumbnail_url: 'https://cdn.example/z.jpg', media_type: 'photo' }),
      item('offset', MSG, '2024-07-12T20:30:00-04:00', { media_type: 'video', duration_seconds: 12.5 }),
      item('nulls', MSG, '2024-07-13T00:10:00.250+00:00', {
        media_type: null,
        filename: null,
        thumbnail_url: null,
        duration_seconds: null,
        device_make: null,
        device_model: null,
        device_lens_model: null,
        unknown_member: 1,
      }),
      item('i'.repeat(255), MSG, AT),
      item('i'.repeat(256), MSG, AT),
      item('lat-string', MSG, AT, { latitude: String(MSG.lat) }),
      item('lon-string', MSG, AT, { longitude: String(MSG.lon) }),
      item('lat-range', MSG, AT, { latitude: -90.5 }),
      item('lon-range', MSG, AT, { longitude: 180.5 }),
      item('kind', MSG, AT, { media_type: 'gif' }),
      item('kind-case', MSG, AT, { media_type: 'Photo' }),
      item('thumb', MSG, AT, { thumbnail_url: 7 }),
      // Never fetched or validated: any string is stored and echoed verbatim.
      item('thumb-text', MSG, AT, { thumbnail_url: ' not a uri/../x.jpg ' }),
      item('surrogate-\ud800', MSG, AT),
      item('duration', MSG, AT, { duration_seconds: '5' }),
      item('filename', MSG, AT, { filename: 12 }),
      item('epoch', MSG, AT, { taken_at: 1720828800 }),
      item('date-only', MSG, AT, { taken_at: '2024-07-13' }),
      item('no-zone', MSG, AT, { taken_at: '2024-07-13T00:00:00' }),
      item('feb-30', MSG, AT, { taken_at: '2024-02-30T00:00:00Z' }),
      item('empty-time', MSG, AT, { taken_at: '' }),
      item('no-lat', MSG, AT, { latitude: null }),
      item('no-lon', MSG, AT, { longitude: undefined }),
      item('no-time', MSG, AT, { taken_at: null }),
      { id: 'bare' },
      item('unlicensed', MSG, '2024-08-13T00:00:00Z'),
      item('hidden', MSG, '2024-09-13T00:00:00Z'),
      item('no-event', MSG, '2019-01-01T00:00:00Z'),
      item('nowhere', { lat: 0, lon: 0 }, AT),
      item('opera', SYDNEY, '2024-01-10T08:00:00Z'),
    ];
    const reply = await api(`/users/${user}/media?dry=1`, { body: { media: items } });
    expect(reply.status).toBe(200);
    const body = IngestResponse.parse(reply.json);
    const reasons = Object.fromEntries(body.rejected.map((r) => [r.id, r.reason]));
    expect(reasons).toEqual({
      ['i'.repeat(256)]: 'invalid',
      'lat-string': 'invalid',
      'lon-string': 'invalid',
      'lat-range': 'invalid',
      'lon-range': 'invalid',
      kind: 'invalid',
      'kind-case': 'invalid',
      thumb: 'invalid',
      duration: 'invalid',
      filename: 'invalid',
      epoch: 'invalid',
      'date-only': 'invalid',
      'no-zone': 'invalid',
      'feb-30': 'invalid',
      'empty-time': 'invalid',
      'no-lat': 'missing_coordinates',
      'no-lon': 'missing_coordinates',
      'no-time': 'missing_taken_at',
      bare: 'missing_coordinates',
      'surrogate-\ud800': 'invalid',
    });
    expect(body.rejected).toHaveLength(20);
    // The lone surrogate comes back exactly as sent (JSON-escaped on the wire).
    expect(reply.text).toContain('"surrogate-\\ud800"');
    expect(body.accepted).toBe(items.length - body.rejected.length);
    expect(body.matches).toHaveLength(body.accepted);
    const byId = new Map(body.matches.map((m) => [m.media_id, m]));
    const matchedTo100 = { matched: true, event_id: 100, venue_id: null };
    expect(byId.get('z-utc')).toMatchObject(matchedTo100);
    expect(byId.get('offset')).toMatchObject(matchedTo100);
    expect(byId.get('nulls')).toMatchObject(matchedTo100);
    expect(byId.get('thumb-text')).toMatchObject(matchedTo100);
    expect(byId.get('i'.repeat(255))).toMatchObject(matchedTo100);
    expect(byId.get('opera')).toEqual({ media_id: 'opera', matched: true, event_id: 103, venue_id: null });
    expect(byId.get('unlicensed')).toEqual({ media_id: 'unlicensed', matched: false, event_id: null, venue_id: 1 });
    expect(byId.get('hidden')).toEqual({ media_id: 'hidden', matched: false, event_id: null, venue_id: null });
    expect(byId.get('no-event')).toEqual({ media_id: 'no-event', matched: false, event_id: null, venue_id: null });
    expect(byId.get('nowhere')).toEqual({ media_id: 'nowhere', matched: false, event_id: null, venue_id: null });
    expect(body.matched).toBe(6);
    expect(body.matched).toBe(body.matches.filter((m) => m.matched && m.event_id != null).length);

    expect(body.events.map((e) => e.id).sort()).toEqual([100, 103]);
    const event100 = body.events.find((e) => e.id === 100)!;
    expect(event100).toMatchObject({
      name: 'The Example Band live',
      starts_at_local: '2024-07-12T20:00:00',
      venue: {
        id: 1,
        name: 'Madison Square Garden',
        city: 'New York',
        region: 'NY',
        country: 'US',
        latitude: MSG.lat,
        longitude: MSG.lon,
      },
      performers: [{ id: 7, name: 'The Example Band', category: 'rock', image_url: null, is_headliner: true }],
      media_count: 5,
    });
    expect(event100.venue).not.toHaveProperty('capacity');
    // taken_at ascending (ties by id); a thumbnail never sent (or sent as null) is absent.
    expect(event100.media).toEqual([
      { media_id: 'i'.repeat(255), taken_at: AT, media_type: 'photo' },
      { media_id: 'thumb-text', taken_at: AT, media_type: 'photo', thumbnail_url: ' not a uri/../x.jpg ' },
      { media_id: 'z-utc', taken_at: AT, media_type: 'photo', thumbnail_url: 'https://cdn.example/z.jpg' },
      { media_id: 'nulls', taken_at: '2024-07-13T00:10:00.250+00:00', media_type: 'photo' },
      { media_id: 'offset', taken_at: '2024-07-12T20:30:00-04:00', media_type: 'video' },
    ]);
  });

  it(
    'fails the request for a bad batch: shape 400, empty 400, over 200 items 413, a non-object item 400 with its ' +
      'index',
    async () => {
      const user = await newUser('batches@example.com');
      const media = (body: unknown) => api(`/users/${user}/media`, { body });
      expectError(await media({ media: [] }), 400, 'empty_batch');
      for (const body of [{}, { media: null }, { media: {} }, { media: 'x' }, [], 'media', null])
        expectError(await media(body), 400, 'invalid_request');
      expectError(
        await media({ media: Array.from({ length: 201 }, (_, i) => ({ id: `m${i}` })) }),
        413,
        'invalid_batch_size',
      );
      const fine = await media({ media: Array.from({ length: 200 }, (_, i) => ({ id: `m${i}` })) });
      expect(fine.status).toBe(200);
      expect(fine.json).toMatchObject({ accepted: 0, matched: 0, matches: [], events: [] });
      expect(fine.json.rejected).toHaveLength(200);
      for (const [items, index] of [
        [[{ id: 'a' }, 'b'], 1],
        [[{ id: null }], 0],
        [[{ id: 'a' }, { id: '' }], 1],
        [[{ id: 5 }], 0],
        [[{}], 0],
        [[null], 0],
      ] as const) {
        const reply = await media({ media: items });
        expectError(reply, 400, 'invalid_media_item');
        expect(reply.json.error.details).toEqual({ index });
      }
    },
  );

  it('never lets a failed request or a media batch touch has_synced; last_sync_at starts null and never moves back', async () => {
    const user = await newUser('markers@example.com');
    const stats = async () => Stats.parse((await api(`/users/${user}/stats`)).json);
    expect(await stats()).toMatchObject({ has_synced: false, last_sync_at: null, total_events: 0, unique_venues: [] });
    expectError(await api(`/users/${user}/media`, { body: { media: [] } }), 400, 'empty_batch');
    expect((await stats()).last_sync_at).toBeNull();
    const seen: string[] = [];
    for (let i = 0; i < 3; i += 1) {
      const reply = IngestResponse.parse(
        (await api(`/users/${user}/media`, { body: { media: [item(`k${i}`, MSG, AT)] } })).json,
      );
      seen.push(reply.last_sync_at);
    }
    const afterBatches = await stats();
    expect(afterBatches.has_synced).toBe(false);
    expect(afterBatches.last_sync_at).toBe(seen[2]);
    const synced = await api(`/users/${user}/sync-complete`, { method: 'POST' });
    expect(synced.json.has_synced).toBe(true);
    seen.push(synced.json.last_sync_at);
    const later = IngestResponse.parse(
      (await api(`/users/${user}/media`, { body: { media: [item('k9', MSG, AT)] } })).json,
    );
    seen.push(later.last_sync_at);
    for (let i = 1; i < seen.length; i += 1)
      expect(Date.parse(seen[i]!)).toBeGreaterThanOrEqual(Date.parse(seen[i - 1]!));
    expect(await stats()).toMatchObject({ has_synced: true, last_sync_at: later.last_sync_at });
  });

  it('re-sending a batch is safe: same answer, one stored entry per asset id, complete media in events', async () => {
    const user = await newUser('resend@example.com');
    const batch = {
      media: [item('r1', MSG, AT), item('r2', MSG, '2024-07-13T01:00:00Z'), item('r3', MSG, '2019-01-01T00:00:00Z')],
    };
    const first = IngestResponse.parse((await api(`/users/${user}/media`, { body: batch })).json);
    const second = IngestResponse.parse((await api(`/users/${user}/media`, { body: batch })).json);
    const strip = (r: typeof first) => ({ ...r, last_sync_at: '' });
    expect(strip(second)).toEqual(strip(first));
    const more = IngestResponse.parse(
      (await api(`/users/${user}/media`, { body: { media: [item('r4', MSG, '2024-07-13T02:00:00Z')] } })).json,
    );
    expect(more.events).toHaveLength(1);
    expect(more.events[0]!.media!.map((m) => m.media_id)).toEqual(['r1', 'r2', 'r4']);
    expect(more.events[0]!.media_count).toBe(3);
    const page = EventsPage.parse((await api(`/users/${user}/events`)).json);
    expect(page.total).toBe(1);
    expect(page.events[0]!.media_count).toBe(3);
  });
});

describe('GET /users/{id}/events and /stats', () => {
  let pager = '';
  beforeAll(async () => {
    pager = await newUser('pager@example.com');
    const items = PAGING.map((e) =>
      item(`p${e.id}`, HALL, `${e.starts_at_local}Z`, { thumbnail_url: `https://cdn.example/${e.id}.jpg` }),
    );
    const reply = IngestResponse.parse((await api(`/users/${pager}/media`, { body: { media: items } })).json);
    expect(reply.matched).toBe(25);
  });

  it('pages 20 events by default, newest first, with total on every page and a null cursor on the last', async () => {
    const first = EventsPage.parse((await api(`/users/${pager}/events`)).json);
    expect(first.events).toHaveLength(20);
    expect(first.has_more).toBe(true);
    expect(first.total).toBe(25);
    expect(typeof first.next_cursor).toBe('string');
    expect(first.events.map((e) => e.id)).toEqual(Array.from({ length: 20 }, (_, i) => 224 - i));
    expect(first.events[0]!.media).toEqual([
      {
        media_id: 'p224',
        taken_at: '2021-01-25T20:00:00Z',
        media_type: 'photo',
        thumbnail_url: 'https://cdn.example/224.jpg',
      },
    ]);
    const second = EventsPage.parse(
      (await api(`/users/${pager}/events?cursor=${encodeURIComponent(first.next_cursor!)}`)).json,
    );
    expect(second.events.map((e) => e.id)).toEqual([204, 203, 202, 201, 200]);
    expect(second).toMatchObject({ has_more: false, next_cursor: null, total: 25 });
  });

  it('follows next_cursor to the end with any page size and include_media=false/0 omitting media', async () => {
    for (const [limit, flag] of [
      [1, 'false'],
      [7, '0'],
      [100, 'true'],
      [25, '1'],
    ] as const) {
      const ids: number[] = [];
      let cursor: string | null = null;
      for (let i = 0; i < 40; i += 1) {
        const query: string = `limit=${limit}&include_media=${flag}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
        const page = EventsPage.parse((await api(`/users/${pager}/events?${query}`)).json);
        expect(page.total).toBe(25);
        expect(page.events.length).toBeLessThanOrEqual(limit);
        for (const event of page.events) {
          expect(event.media_count).toBe(1);
          if (flag === 'false' || flag === '0') expect(event).not.toHaveProperty('media');
          else expect(event.media).toHaveLength(1);
        }
        ids.push(...page.events.map((e) => e.id));
        if (!page.has_more) {
          expect(page.next_cursor).toBeNull();
          break;
        }
        cursor = page.next_cursor;
      }
      expect(ids).toEqual(Array.from({ length: 25 }, (_, i) => 224 - i));
    }
  });

  it.each([
    'limit=0',
    'limit=101',
    'limit=abc',
    'limit=',
    'limit=1.5',
    'limit=-1',
    'limit=1e1',
    'include_media=yes',
    'include_media=TRUE',
    'include_media=',
    'include_media=no',
  ])('answers ?%s with 400 invalid_request', async (query) => {
    expectError(await api(`/users/${pager}/events?${query}`), 400, 'invalid_request');
  });

  it('answers a cursor this server did not issue for this user with 400 invalid_cursor', async () => {
    const first = EventsPage.parse((await api(`/users/${pager}/events?limit=5`)).json);
    const other = await newUser('other-pager@example.com');
    for (const [user, cursor] of [
      [pager, 'abc'],
      [pager, `${first.next_cursor}x`],
      [pager, `x${first.next_cursor}`],
      [other, first.next_cursor!],
    ] as const) {
      expectError(await api(`/users/${user}/events?cursor=${encodeURIComponent(cursor)}`), 400, 'invalid_cursor');
    }
  });

  it('computes stats on local dates with seasons flipped south of the equator and superlatives from 3 events', async () => {
    const user = await newUser('stats@example.com');
    const stats = async () => Stats.parse((await api(`/users/${user}/stats`)).json);
    await api(`/users/${user}/media`, {
      body: {
        media: [
          item('s1', MSG, AT),
          item('s2', SYDNEY, '2024-01-10T08:00:00Z'),
          item('u', MSG, '2024-08-13T00:00:00Z'),
        ],
      },
    });
    expect(await stats()).toMatchObject({
      total_events: 2,
      total_venues: 2,
      concerts_count: 2,
      sports_count: 0,
      busiest_year: null,
      top_season: null,
      top_artist: null,
      top_genre: null,
      top_team: null,
      top_league: null,
      first_attended: '2024-01-10',
      most_recently_attended: '2024-07-12',
    });
    // The sport event starts 2023-12-01 19:00 in New York, which is 2023-12-02 in UTC.
    await api(`/users/${user}/media`, { body: { media: [item('s3', MSG, '2023-12-02T00:30:00Z')] } });
    const full = await stats();
    expect(full).toMatchObject({
      total_events: 3,
      total_venues: 2,
      concerts_count: 2,
      sports_count: 1,
      has_synced: false,
      first_attended: '2023-12-01',
      most_recently_attended: '2024-07-12',
      busiest_year: '2024',
      top_season: 'summer',
      top_artist: 'The Example Band',
      top_genre: 'rock',
      top_league: 'Example League',
    });
    expect(['Alpha City', 'Beta United']).toContain(full.top_team);
    expect(full.unique_venues.map((v) => [v.venue.id, v.visit_count])).toEqual(
      expect.arrayContaining([
        [1, 2],
        [2, 1],
      ]),
    );
    expect(full.unique_venues).toHaveLength(2);
    const page = EventsPage.parse((await api(`/users/${user}/events`)).json);
    expect(page.events.map((e: Event) => e.id)).toEqual([100, 103, 104]);
    expect(page.total).toBe(full.total_events);
  });
});

describe('rate limiting', () => {
  it('answers 429 rate_limited with an integer Retry-After once a key is over its limit; /health and /ping stay open', async () => {
    let limited: Reply | null = null;
    for (let i = 0; i < 5 && !limited; i += 1) {
      const reply = await send(`${base}/users`, { key: LIMITED, body: { email: `limited${i}@example.com` } });
      if (reply.status === 429) limited = reply;
      else expect(reply.status).toBe(201);
    }
    expect(limited).not.toBeNull();
    expectError(limited!, 429, 'rate_limited');
    expect(String(limited!.headers['retry-after'])).toMatch(/^[1-9]\d*$/);
    expect((await send(`${base}/health`, { key: LIMITED })).status).toBe(200);
    expect((await send(`${base}/ping`)).status).toBe(200);
    // Other keys are unaffected.
    expect((await api('/users', { body: { email: 'unthrottled@example.com' } })).status).toBe(201);
  });
});
