import { createServer as createNetServer } from 'node:net';
import type { ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeSkew, runDoctor, type DoctorTarget } from '../../src/doctor/run-doctor.js';
import { Agent } from 'undici';
import { judgeIngest, smokeBatch, smokeEmail } from '../../src/doctor/round-trip.js';
import { startTestServer, type SeenRequest } from '../client/test-server.js';
import { tlsAlert, tlsFront } from '../helpers/tls-front.js';

const KEY = 'sk_test_doctor_secret_1234';
const HEALTH = {
  status: 'ok',
  partner_id: 'acme',
  environment: 'production',
  rate_limit: { enabled: false, limit: null, window_seconds: null },
};

/** A service stand-in whose answers a test breaks in one named way. */
type Breakage = (req: SeenRequest, res: ServerResponse) => boolean;
let breakage: Breakage = () => false;
let server: Awaited<ReturnType<typeof startTestServer>>;
beforeAll(async () => {
  server = await startTestServer((req, res) => {
    if (breakage(req, res)) return;
    const send = (status: number, body: unknown): void => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    if (req.url === '/v1/ping') return send(200, { status: 'ok' });
    if (req.url === '/v1/health') {
      if (req.headers['x-partner-api-key'] !== KEY)
        return send(401, { error: { code: 'invalid_api_key', message: 'bad key' } });
      return send(200, HEALTH);
    }
    return send(404, { error: { code: 'not_found', message: 'no route' } });
  });
});
afterAll(() => server.close());

const target = (overrides: Partial<DoctorTarget> = {}): DoctorTarget => ({
  kind: 'remote',
  baseUrl: `${server.origin}/v1`,
  apiKey: KEY,
  baseUrlSource: 'flag',
  apiKeySource: 'env',
  ...overrides,
});
const run = async (breaking: Breakage, overrides: Partial<DoctorTarget> = {}, now?: () => number) => {
  breakage = breaking;
  const checks = await runDoctor({ target: target(overrides), ...(now ? { now } : {}) });
  return Object.fromEntries(checks.map((c) => [c.name, c]));
};

describe('camroll doctor against a service that keeps the contract', () => {
  it('passes every check, names where settings came from, and never shows the key', async () => {
    breakage = () => false;
    const checks = await runDoctor({ target: target() });
    expect(checks.map((c) => `${c.name} ${c.status}`)).toEqual([
      'config.base_url pass',
      'config.https pass',
      'config.key pass',
      'reach.dns pass',
      'reach.ping pass',
      'clock pass',
      'contract.errors pass',
      'key.health pass',
      'key.environment pass',
    ]);
    expect(checks.find((c) => c.name === 'key.health')?.detail).toBe(
      'partner acme, environment production, not throttled',
    );
    expect(checks.find((c) => c.name === 'config.key')?.detail).toBe('set (from the environment)');
    expect(JSON.stringify(checks)).not.toContain(KEY);
  });
});

describe('each broken promise fails its own check, with a hint', () => {
  it('an HTML page instead of JSON', async () => {
    const checks = await run((req, res) => {
      if (req.url !== '/v1/ping') return false;
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<!DOCTYPE html><html><title>Sign in</title></html>');
      return true;
    });
    expect(checks['reach.ping']).toMatchObject({
      status: 'fail',
      detail: expect.stringContaining('not JSON (text/html: "<!DOCTYPE html>'),
      hint: expect.stringContaining('an HTML login page?'),
    });
    expect(checks['key.health']?.status).toBe('skip');
  });

  it('a member missing from /health', async () => {
    const checks = await run((req, res) => {
      if (req.url !== '/v1/health' || req.headers['x-partner-api-key'] !== KEY) return false;
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ status: 'ok', environment: 'production', rate_limit: null }));
      return true;
    });
    expect(checks['key.health']).toMatchObject({
      status: 'fail',
      detail: expect.stringContaining('breaks the contract at partner_id'),
    });
  });

  it('a wrong status', async () => {
    const checks = await run((req, res) => {
      if (req.url !== '/v1/ping') return false;
      res.writeHead(201, { 'content-type': 'application/json' });
      res.end('{}');
      return true;
    });
    expect(checks['reach.ping']).toMatchObject({ status: 'fail', detail: 'GET /ping answered 201, not 200' });
  });

  it('a 401 without the envelope, or a key check that is not enforced', async () => {
    const checks = await run((req, res) => {
      if (req.url !== '/v1/health' || req.headers['x-partner-api-key'] === KEY) return false;
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(HEALTH));
      return true;
    });
    expect(checks['contract.errors']).toMatchObject({
      status: 'fail',
      detail: 'GET /health without a key answered 200, not 401',
    });
  });

  it('clock skew, in hours and minutes: minutes warn, hours fail', async () => {
    const skewed = (ms: number) => () => Date.now() + ms;
    expect((await run(() => false, {}, skewed(5 * 60_000))).clock).toMatchObject({
      status: 'warn',
      detail: expect.stringMatching(/^local clock 5 min( [12] s)? ahead of the service$/),
    });
    expect((await run(() => false, {}, skewed(-(3 * 3600 + 20 * 60 + 30) * 1000))).clock).toMatchObject({
      status: 'fail',
      detail: expect.stringMatching(/^local clock 3 h 2\d min behind the service$/),
      hint: expect.stringContaining('UTC'),
    });
  });

  it("a skew within the measure's own uncertainty (half the Date second, half the round trip) is no finding", async () => {
    const date = 'Sat, 28 Nov 2026 12:00:00 GMT';
    const stamped = (req: { url?: string }, res: import('node:http').ServerResponse): boolean => {
      if (req.url !== '/v1/ping') return false;
      res.writeHead(200, { 'content-type': 'application/json', date });
      res.end(JSON.stringify({ status: 'ok' }));
      return true;
    };
    const at = (ms: number) => () => Date.parse(date) + ms;
    // 0.9 s into the second the header names: "1 s ahead" before, though the service's clock may read 0.9 s too.
    expect((await run(stamped, {}, at(900))).clock).toMatchObject({
      status: 'pass',
      detail: expect.stringMatching(/^local clock in step with the service \(to ±0\.[5-9] s\)$/),
    });
    expect((await run(stamped, {}, at(100))).clock).toMatchObject({
      detail: expect.stringMatching(/^local clock in step with the service/),
    });
    // Beyond it, a skew is said as before.
    expect((await run(stamped, {}, at(2600))).clock).toMatchObject({
      status: 'pass',
      detail: 'local clock 2 s ahead of the service',
    });
    expect((await run(stamped, {}, at(-1500))).clock).toMatchObject({
      status: 'pass',
      detail: 'local clock 2 s behind the service',
    });
  });

  it.each([
    [0, '0 s'],
    [59, '59 s'],
    [60, '1 min'],
    [301, '5 min 1 s'],
    [3600, '1 h'],
    [12_030, '3 h 20 min'],
    [-12_030, '3 h 20 min'],
    [86_400 * 2 + 3600 * 4 + 59, '2 d 4 h'],
  ])('a skew of %i s reads %s', (seconds, words) => {
    expect(describeSkew(seconds)).toBe(words);
  });

  it('a base URL without /v1: a warning on the URL, a failure on ping saying the /v1 URL answers', async () => {
    const checks = await run(() => false, { baseUrl: server.origin });
    expect(checks['config.base_url']).toMatchObject({
      status: 'warn',
      hint: `no version prefix in the base URL: did you mean ${server.origin}/v1?`,
    });
    expect(checks['reach.ping']).toMatchObject({
      status: 'fail',
      hint: `no version prefix: did you mean ${server.origin}/v1? (it answers /ping)`,
    });
  });

  it('a wrong key, or one from the other environment', async () => {
    const checks = await run(() => false, { apiKey: 'sk_wrong_0000' });
    expect(checks['key.health']).toMatchObject({
      status: 'fail',
      hint: expect.stringContaining('belongs to the other environment'),
    });
    expect(JSON.stringify(checks)).not.toContain('sk_wrong_0000');
  });

  it('no key at all: the key checks are skipped, not guessed', async () => {
    const checks = await run(() => false, { apiKey: null, apiKeySource: 'none' });
    expect(checks['config.key']).toMatchObject({
      status: 'fail',
      hint: expect.stringContaining('camroll config set-key'),
    });
    expect(checks['key.health']?.status).toBe('skip');
  });

  it('a sandbox key warns that its users are real profiles on a remote host, not on this machine (camroll serve)', async () => {
    breakage = (req, res) => {
      if (req.url !== '/v1/health' || req.headers['x-partner-api-key'] !== KEY) return false;
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ ...HEALTH, environment: 'sandbox' }));
      return true;
    };
    const { port } = new URL(server.origin);
    // A host name that is not this machine's, resolved to the stand-in.
    const toStandIn = new Agent({
      connect: {
        lookup: (_host: string, options: { all?: boolean }, done: (...args: unknown[]) => void) =>
          options.all ? done(null, [{ address: '127.0.0.1', family: 4 }]) : done(null, '127.0.0.1', 4),
      } as never,
    });
    try {
      const remote = await runDoctor({
        target: target({ baseUrl: `http://sandbox.example.test:${port}/v1` }),
        dispatcher: toStandIn,
        lookup: async () => undefined,
      });
      expect(remote.find((c) => c.name === 'key.environment')).toMatchObject({
        status: 'warn',
        hint: expect.stringContaining('real profiles'),
      });
    } finally {
      await toStandIn.close();
    }
    for (const host of ['127.0.0.1', 'localhost']) {
      const local = await runDoctor({ target: target({ baseUrl: `http://${host}:${port}/v1` }) });
      expect(local.find((c) => c.name === 'key.environment')).toEqual({
        name: 'key.environment',
        status: 'pass',
        detail: 'sandbox (a service on this machine: a local database)',
      });
      expect(JSON.stringify(local)).not.toContain('real profiles');
    }
  });

  it('nothing listening, and a host name that does not resolve', async () => {
    const probe = createNetServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const port = (probe.address() as { port: number }).port;
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    const refused = Object.fromEntries(
      (await runDoctor({ target: target({ baseUrl: `http://127.0.0.1:${port}/v1` }) })).map((c) => [c.name, c]),
    );
    expect(refused['reach.ping']).toMatchObject({
      status: 'fail',
      detail: 'ECONNREFUSED',
      hint: expect.stringContaining('is the service running'),
    });
    const unresolved = await runDoctor({
      target: target({ baseUrl: 'https://no-such-host.invalid/v1' }),
      lookup: () => Promise.reject(Object.assign(new Error('getaddrinfo ENOTFOUND'), { code: 'ENOTFOUND' })),
    });
    expect(unresolved.find((c) => c.name === 'reach.dns')).toMatchObject({
      status: 'fail',
      detail: 'no-such-host.invalid: ENOTFOUND',
    });
    expect(unresolved.find((c) => c.name === 'reach.ping')?.status).toBe('skip');
  });

  it('a host that takes the connection and never answers: a timeout, named as such', async () => {
    const sockets = new Set<import('node:net').Socket>();
    const silent = createNetServer((socket) => sockets.add(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    try {
      const port = (silent.address() as { port: number }).port;
      const checks = await runDoctor({ target: target({ baseUrl: `http://127.0.0.1:${port}/v1` }), timeoutMs: 300 });
      expect(checks.find((c) => c.name === 'reach.ping')).toEqual({
        name: 'reach.ping',
        status: 'fail',
        detail: 'UND_ERR_HEADERS_TIMEOUT: no answer within 0.3 s',
        hint: 'the host took the connection but did not answer (a hung server or proxy?)',
      });
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => silent.close(() => resolve()));
    }
  });

  it('a host whose answer stalls after the headers: said as every other command says it', async () => {
    const server = await startTestServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"status":');
    });
    try {
      const checks = await runDoctor({ target: target({ baseUrl: `${server.origin}/v1` }), timeoutMs: 300 });
      expect(checks.find((c) => c.name === 'reach.ping')).toMatchObject({
        status: 'fail',
        detail: 'UND_ERR_BODY_TIMEOUT: the answer stalled for 0.3 s',
      });
    } finally {
      await server.close();
    }
  });

  it('https:// to a host that takes the connection and never starts TLS: gives up after the timeout, not after 10 s', async () => {
    const sockets = new Set<import('node:net').Socket>();
    const silent = createNetServer((socket) => sockets.add(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    try {
      const port = (silent.address() as { port: number }).port;
      const checks = await runDoctor({ target: target({ baseUrl: `https://127.0.0.1:${port}/v1` }), timeoutMs: 300 });
      // undici's default connect timeout is 10 s: the one that fired is the request's 300 ms.
      expect(checks.find((c) => c.name === 'reach.ping')).toMatchObject({
        status: 'fail',
        detail: expect.stringMatching(/^UND_ERR_CONNECT_TIMEOUT: .*\btimeout: 300ms\)$/),
        hint: 'the host took the connection but did not answer (a hung server or proxy?)',
      });
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => silent.close(() => resolve()));
    }
  });

  it('https:// to a plain HTTP server: one line naming the http:// URL, no OpenSSL text', async () => {
    const port = new URL(server.origin).port;
    const checks = await runDoctor({ target: target({ baseUrl: `https://127.0.0.1:${port}/v1` }) });
    const ping = checks.find((c) => c.name === 'reach.ping');
    expect(ping).toEqual({
      name: 'reach.ping',
      status: 'fail',
      detail: 'the server speaks plain HTTP, not TLS (ERR_SSL_WRONG_VERSION_NUMBER)',
      hint: `the server speaks plain HTTP: did you mean http://127.0.0.1:${port}/v1?`,
    });
    expect(JSON.stringify(checks)).not.toMatch(/SSL routines|openssl/i);
  });

  it('http:// to a TLS port that answers plain bytes with a TLS alert: one line naming the https:// URL', async () => {
    const front = await tlsFront({ onPlain: tlsAlert });
    try {
      const port = front.port;
      const checks = await runDoctor({ target: target({ baseUrl: `http://127.0.0.1:${port}/v1` }) });
      expect(checks.find((c) => c.name === 'reach.ping')).toEqual({
        name: 'reach.ping',
        status: 'fail',
        detail: 'the server speaks TLS, not plain HTTP (HPE_INVALID_RESPONSE)',
        hint: `the server speaks TLS: did you mean https://127.0.0.1:${port}/v1?`,
      });
    } finally {
      await front.close();
    }
  });
});

describe('every failed check says what to do', () => {
  const sendAt =
    (url: string, status: number, body: string, type = 'application/json'): Breakage =>
    (req, res) => {
      if (req.url?.split('?')[0] !== url) return false;
      res.writeHead(status, { 'content-type': type });
      res.end(body);
      return true;
    };
  const withKey =
    (breakage: Breakage): Breakage =>
    (req, res) =>
      req.headers['x-partner-api-key'] === KEY && breakage(req, res);
  const withoutKey =
    (breakage: Breakage): Breakage =>
    (req, res) =>
      req.headers['x-partner-api-key'] !== KEY && breakage(req, res);
  const USER = '3f1c2a8e-4b5d-4c6e-8f90-123456789abc';
  /** The round trip's requests, answered as the contract says unless a breakage says otherwise. */
  const roundTrip =
    (breakage: Breakage): Breakage =>
    (req, res) => {
      if (breakage(req, res)) return true;
      const send = (status: number, body: unknown): true => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(body));
        return true;
      };
      if (req.url === '/v1/users')
        return send(201, { user_id: USER, existing: false, created_at: '2026-01-01T00:00:00Z' });
      return false;
    };
  it.each([
    ['/ping answers HTML', sendAt('/v1/ping', 200, '<html></html>', 'text/html')],
    ['/ping answers 201', sendAt('/v1/ping', 201, '{}')],
    ['/ping answers another body', sendAt('/v1/ping', 200, '{"status": 1}')],
    ['/health without a key answers 200', withoutKey(sendAt('/v1/health', 200, JSON.stringify(HEALTH)))],
    ['the 401 has no envelope', withoutKey(sendAt('/v1/health', 401, '{"message": "no"}'))],
    ['the 401 has another code', withoutKey(sendAt('/v1/health', 401, '{"error": {"code": "nope", "message": "no"}}'))],
    [
      '/health answers 500',
      withKey(sendAt('/v1/health', 500, '{"error": {"code": "internal_error", "message": "x"}}')),
    ],
    ['/health answers HTML', withKey(sendAt('/v1/health', 200, '<html></html>', 'text/html'))],
    ['/health answers 403', withKey(sendAt('/v1/health', 403, '{}'))],
    ['/health lacks a member', withKey(sendAt('/v1/health', 200, '{"status": "ok"}'))],
    ['POST /users answers 500', sendAt('/v1/users', 500, '{"error": {"code": "internal_error", "message": "x"}}')],
    ['POST /users answers another body', sendAt('/v1/users', 201, '{"id": 1}')],
    [
      'the media batch is throttled',
      roundTrip(sendAt(`/v1/users/${USER}/media`, 429, '{"error": {"code": "rate_limited", "message": "x"}}')),
    ],
    ['the media answer breaks the contract', roundTrip(sendAt(`/v1/users/${USER}/media`, 200, '{"accepted": "x"}'))],
    ['events break the contract', roundTrip(sendAt(`/v1/users/${USER}/events`, 200, '{"events": 1}'))],
    ['stats break the contract', roundTrip(sendAt(`/v1/users/${USER}/stats`, 200, '{"total_events": "x"}'))],
  ] as const)('%s', async (_name, breaking) => {
    breakage = breaking;
    const checks = await runDoctor({ target: target(), roundTrip: true });
    const failed = checks.filter((c) => c.status === 'fail');
    expect(failed.length, JSON.stringify(checks)).toBeGreaterThan(0);
    for (const check of failed) expect(check.hint, JSON.stringify(check)).toMatch(/\w{3}/);
  });
});

describe('the round trip', () => {
  it('uses one smoke address per partner that can never receive mail', () => {
    expect(smokeEmail('Acme Corp')).toBe('camroll-doctor@acme-corp.invalid');
    expect(smokeEmail('***')).toBe('camroll-doctor@partner.invalid');
  });

  it('checks the ingest invariants of the contract', () => {
    const { media, expected } = smokeBatch();
    const good = {
      accepted: 1,
      matched: 0,
      events: [],
      last_sync_at: '2026-11-24T10:00:00Z',
      rejected: [
        { id: media[0]!.id, reason: 'missing_coordinates' },
        { id: media[1]!.id, reason: 'missing_taken_at' },
        { id: media[2]!.id, reason: 'invalid' },
      ],
      matches: [{ media_id: media[3]!.id, matched: false, event_id: null, venue_id: null }],
    };
    expect(judgeIngest(good, 4, expected).status).toBe('pass');
    expect(judgeIngest({ ...good, accepted: 2 }, 4, expected).detail).toContain(
      'accepted 2 is not sent 4 − rejected 3',
    );
    const mangled = { ...good, matches: [{ ...good.matches[0]!, media_id: 'doctor:unmatched ?' }] };
    expect(judgeIngest(mangled, 4, expected).detail).toContain('ids not echoed exactly');
    expect(
      judgeIngest({ ...good, rejected: good.rejected.map((r) => ({ ...r, reason: 'invalid' })) }, 4, expected).status,
    ).toBe('fail');
  });
});
