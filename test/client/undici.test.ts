import * as undici from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Agent, connectOptions, request } from '../../src/client/undici.js';
import { startTestServer } from './test-server.js';

/*
 * src/client/undici.ts loads two of undici's own files rather than its index. Those paths are
 * undici's layout, not its published API: an update that moves them must fail here, loudly,
 * not in a partner's sync.
 */
describe("undici's parts loaded alone", () => {
  let server: Awaited<ReturnType<typeof startTestServer>>;
  beforeAll(async () => {
    server = await startTestServer((req, res) => {
      res.writeHead(201, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ method: req.method, url: req.url, body: req.body }));
    });
  });
  afterAll(() => server.close());

  it('Agent is the class the index exports (one module cache)', () => {
    expect(Agent).toBe(undici.Agent);
  });

  it('request sends method, path with query and body through the given dispatcher, and reads the answer', async () => {
    const dispatcher = new Agent();
    try {
      const res = await request(new URL(`${server.origin}/v1/users/u%201/media?limit=5`), {
        dispatcher,
        method: 'POST',
        body: '{"a":1}',
      });
      expect(res.statusCode).toBe(201);
      expect(await res.body.json()).toEqual({ method: 'POST', url: '/v1/users/u%201/media?limit=5', body: '{"a":1}' });
    } finally {
      await dispatcher.close();
    }
  });

  it('a MockAgent from the index drives it', async () => {
    const mock = new undici.MockAgent();
    mock.disableNetConnect();
    mock.get('https://partner.example').intercept({ path: '/v1/ping', method: 'GET' }).reply(200, { status: 'ok' });
    const res = await request(new URL('https://partner.example/v1/ping'), { dispatcher: mock, method: 'GET' });
    expect(await res.body.json()).toEqual({ status: 'ok' });
    await mock.close();
  });
});

describe('connectOptions', () => {
  it("shortens undici's 10 s connect limit to a shorter request timeout, never lengthens it", () => {
    expect(connectOptions(2000)).toEqual({ timeout: 2000 });
    expect(connectOptions(10_000)).toEqual({ timeout: 10_000 });
    expect(connectOptions(60_000)).toEqual({ timeout: 10_000 });
  });
});
