import { afterEach, describe, expect, it } from 'vitest';
import { createClient, type ClientOptions } from '../../src/client/index.js';
import {
  ApiError,
  CamrollError,
  ContractViolationError,
  InterruptedError,
  NetworkError,
  RequestError,
} from '../../src/errors.js';
import { json, startTestServer, type Handler } from './test-server.js';
import { FRESH_STATS } from '../helpers/stats.js';

const KEY = 'sk_test_supersecret_0123456789';
const USER = '3f1c2a8e-4b5d-4c6e-8f90-123456789abc';
const stats = FRESH_STATS;
const event = (id: number) => ({ id, name: `Event ${id}`, starts_at_local: '2024-07-12T20:00:00', media_count: 0 });

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()?.();
});

async function setup(handler: Handler, extra: Partial<ClientOptions> = {}) {
  const server = await startTestServer(handler);
  const sleeps: number[] = [];
  const client = createClient({
    baseUrl: `${server.origin}/v1/`,
    apiKey: KEY,
    sleep: async (ms) => {
      sleeps.push(ms);
    },
    random: () => 0.5,
    ...extra,
  });
  cleanups.push(
    () => server.close(),
    () => client.close(),
  );
  return { server, client, sleeps };
}

/** Everything about an error that could reach a terminal or a log. */
function printable(error: unknown): string {
  const e = error as Error & { cause?: unknown; details?: unknown };
  return [
    String(e),
    e.message,
    e.stack,
    JSON.stringify(e),
    JSON.stringify(e.details),
    String(e.cause),
    (e.cause as Error | undefined)?.stack,
  ].join('\n');
}

describe('createClient', () => {
  it('uses the base URL whole, ignores its trailing slash and sends the key header', async () => {
    const { server, client } = await setup((_req, res) =>
      json(res, 201, { user_id: USER, existing: false, created_at: '2024-01-01T00:00:00Z' }),
    );
    const created = await client.createUser({ email: 'a@example.com' });
    expect(created).toEqual({ user_id: USER, existing: false, created_at: '2024-01-01T00:00:00Z' });
    const [req] = server.seen;
    expect(req?.method).toBe('POST');
    expect(req?.url).toBe('/v1/users');
    expect(req?.headers['x-partner-api-key']).toBe(KEY);
    expect(req?.headers['content-type']).toBe('application/json');
    expect(JSON.parse(req?.body ?? '')).toEqual({ email: 'a@example.com' });
  });

  it('returns a valid body as the service sent it: member order and members the contract does not name kept', async () => {
    const sent = {
      has_more: false,
      extra_member: { kept: true },
      events: [{ ...event(1), media: [], venue: null }],
      total: 1,
      next_cursor: null,
    };
    const { client } = await setup((_req, res) => json(res, 200, sent));
    const page = await client.events(USER);
    expect(JSON.stringify(page)).toBe(JSON.stringify(sent));
  });

  it('maps an error envelope to ApiError with status, code and details', async () => {
    const { client, server } = await setup((_req, res) =>
      json(res, 404, { error: { code: 'user_not_found', message: 'no such user', details: { user_id: USER } } }),
    );
    const error = await client.stats(USER).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ status: 404, code: 'user_not_found', details: { user_id: USER } });
    expect(server.seen).toHaveLength(1); // 4xx is not retried
  });

  it('keeps an unknown code and handles it by status (a 4xx is not retried)', async () => {
    const { client, server } = await setup((_req, res) =>
      json(res, 409, { error: { code: 'brand_new_code', message: 'hm' } }),
    );
    await expect(client.stats(USER)).rejects.toMatchObject({ status: 409, code: 'brand_new_code' });
    expect(server.seen).toHaveLength(1);
  });

  it('derives a code from the status when the body is not an envelope, and retries a 5xx with backoff', async () => {
    const { client, server, sleeps } = await setup(
      (_req, res) => {
        res.writeHead(502, { 'content-type': 'text/html' });
        res.end('<html>bad gateway</html>');
      },
      { retry: { maxAttempts: 3 } },
    );
    await expect(client.stats(USER)).rejects.toMatchObject({ status: 502, code: 'http_502' });
    expect(server.seen).toHaveLength(3);
    expect(sleeps).toEqual([250, 500]);
  });

  it('retries 5xx then succeeds', async () => {
    const { client, server, sleeps } = await setup((_req, res, i) => {
      if (i < 2) json(res, 500, { error: { code: 'internal_error', message: 'boom' } });
      else json(res, 200, stats);
    });
    await expect(client.stats(USER)).resolves.toEqual(stats);
    expect(server.seen).toHaveLength(3);
    expect(sleeps).toEqual([250, 500]);
  });

  it('honours Retry-After on 429', async () => {
    const { client, server, sleeps } = await setup((_req, res, i) => {
      if (i === 0) json(res, 429, { error: { code: 'rate_limited', message: 'slow down' } }, { 'retry-after': '1' });
      else json(res, 200, stats);
    });
    await expect(client.stats(USER)).resolves.toEqual(stats);
    expect(server.seen).toHaveLength(2);
    expect(sleeps).toEqual([1000]);
  });

  it('gives up after the bounded number of attempts on 429', async () => {
    const { client, server } = await setup(
      (_req, res) => json(res, 429, { error: { code: 'rate_limited', message: 'slow down' } }, { 'retry-after': '1' }),
      { retry: { maxAttempts: 4 } },
    );
    await expect(client.stats(USER)).rejects.toMatchObject({ status: 429, code: 'rate_limited', retryAfterSeconds: 1 });
    expect(server.seen).toHaveLength(4);
  });

  it('reports a body that breaks the contract, naming the full URL and path, without retrying', async () => {
    const { client, server } = await setup((_req, res) => json(res, 200, { ...stats, total_events: 'many' }));
    const error = await client.stats(USER).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ContractViolationError);
    expect((error as Error).message).toContain(`GET ${server.origin}/v1/users/${USER}/stats`);
    expect(error).toMatchObject({
      request: { method: 'GET', url: `${server.origin}/v1/users/${USER}/stats`, baseUrl: `${server.origin}/v1` },
    });
    expect((error as Error).message).toContain('total_events');
    expect(server.seen).toHaveLength(1);
  });

  it('reports a 2xx body that is not JSON as a contract violation', async () => {
    const { client } = await setup((_req, res) => {
      res.writeHead(200);
      res.end('not json');
    });
    await expect(client.stats(USER)).rejects.toBeInstanceOf(ContractViolationError);
  });

  it('times out a silent server and retries within bounds', async () => {
    const { client, server } = await setup(
      () => {
        /* never answers */
      },
      { timeoutMs: 200, retry: { maxAttempts: 2 } },
    );
    const error = await client.stats(USER).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NetworkError);
    expect((error as NetworkError).code).toBe('UND_ERR_HEADERS_TIMEOUT');
    expect(server.seen).toHaveLength(2);
  });

  it('turns a refused connection into NetworkError with the system code', async () => {
    const { server } = await setup(() => {});
    await server.close();
    const client = createClient({
      baseUrl: `${server.origin}/v1`,
      apiKey: KEY,
      retry: { maxAttempts: 2 },
      sleep: async () => {},
    });
    cleanups.push(() => client.close());
    const error = await client.health().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NetworkError);
    expect((error as NetworkError).code).toBe('ECONNREFUSED');
    expect(printable(error)).not.toContain(KEY);
  });

  it('never lets the key reach an error message, even when the server echoes it', async () => {
    const { client } = await setup((req, res) =>
      json(res, 401, {
        error: { code: 'invalid_api_key', message: `bad key ${String(req.headers['x-partner-api-key'])}` },
      }),
    );
    const error = await client.health().catch((e: unknown) => e);
    expect(error).toMatchObject({ status: 401, code: 'invalid_api_key' });
    expect(printable(error)).not.toContain(KEY);
  });

  it('pings without a key, and refuses other calls without one', async () => {
    const { server } = await setup((_req, res) => json(res, 200, { status: 'ok' }));
    const client = createClient({ baseUrl: `${server.origin}/v1`, apiKey: null });
    cleanups.push(() => client.close());
    await expect(client.ping()).resolves.toEqual({ status: 'ok' });
    expect(server.seen[0]?.headers['x-partner-api-key']).toBeUndefined();
    await expect(client.stats(USER)).rejects.toMatchObject({ code: 'missing_api_key' });
  });

  it('follows next_cursor until has_more is false', async () => {
    const { client, server } = await setup((req, res) => {
      const url = new URL(req.url, 'http://x');
      const cursor = url.searchParams.get('cursor');
      if (cursor === null)
        json(res, 200, { events: [event(3), event(2)], has_more: true, next_cursor: 'c1', total: 3 });
      else json(res, 200, { events: [event(1)], has_more: false, next_cursor: null, total: 3 });
    });
    const ids: number[] = [];
    for await (const e of client.allEvents(USER, { includeMedia: false, limit: 2 })) ids.push(e.id);
    expect(ids).toEqual([3, 2, 1]);
    expect(server.seen.map((r) => r.url)).toEqual([
      `/v1/users/${USER}/events?limit=2&include_media=false`,
      `/v1/users/${USER}/events?cursor=c1&limit=2&include_media=false`,
    ]);
  });

  it('stops a pager whose cursor never ends', async () => {
    const { client } = await setup((_req, res) => json(res, 200, { events: [], has_more: true, next_cursor: 'same' }));
    const run = async () => {
      for await (const _ of client.allEvents(USER)) void _;
    };
    await expect(run()).rejects.toBeInstanceOf(ContractViolationError);
  });

  it('stops waiting when the signal aborts during a backoff', async () => {
    const controller = new AbortController();
    const { client } = await setup((_req, res) => json(res, 503, { error: { code: 'internal_error', message: 'x' } }), {
      sleep: async () => {
        controller.abort();
        throw new InterruptedError();
      },
    });
    await expect(client.stats(USER, { signal: controller.signal })).rejects.toBeInstanceOf(InterruptedError);
  });

  it('refuses an empty or oversized batch before sending', async () => {
    const { client, server } = await setup((_req, res) => json(res, 200, {}));
    await expect(client.ingest(USER, [])).rejects.toMatchObject({ code: 'invalid_batch_size' });
    const many = Array.from({ length: 201 }, (_, i) => ({ id: `a${i}` }));
    await expect(client.ingest(USER, many)).rejects.toBeInstanceOf(CamrollError);
    expect(server.seen).toHaveLength(0);
  });

  it('refuses a user body outside the contract before sending, naming the member (never a validator dump)', async () => {
    const { client, server } = await setup((_req, res) => json(res, 200, {}));
    const bad = { email: 'a@example.com', first_name: 42 } as unknown as { email: string };
    const error = await client.createUser(bad).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(RequestError);
    expect(error).toMatchObject({
      code: 'invalid_request',
      message: expect.stringMatching(/^POST \/users: first_name: /),
    });
    expect((error as Error).message).not.toContain('\n');
    expect(server.seen).toHaveLength(0);
  });

  it('accepts health answers whose rate-limit members differ from the embedded shape', async () => {
    const { client } = await setup((_req, res) =>
      json(res, 200, { status: 'ok', partner_id: 'acme', environment: 'sandbox', rate_limit: { rpm: 600 } }),
    );
    await expect(client.health()).resolves.toMatchObject({
      partner_id: 'acme',
      environment: 'sandbox',
      rate_limit: { rpm: 600 },
    });
  });
});
