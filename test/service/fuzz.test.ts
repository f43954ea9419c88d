import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from 'undici';
import { ErrorEnvelope } from '../../src/contract/index.js';
import { ACME, createUser, makeApp, type TestApp } from './helpers.js';
import { seededRandom as rng } from '../../src/util/seeded-random.js';

let t: TestApp;
let origin = '';
let user = '';
beforeAll(async () => {
  t = await makeApp();
  user = await createUser(t.app, ACME, 'fuzz@example.com');
  await t.app.listen({ host: '127.0.0.1', port: 0 });
  const address = t.app.server.address();
  origin = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
});
afterAll(async () => t.close());

describe('fuzz', () => {
  it('answers a few hundred malformed requests without a 500, always with the envelope', async () => {
    const rand = rng(20240713);
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)] as T;
    const junk = (n: number) =>
      Array.from({ length: n }, () => String.fromCharCode(32 + Math.floor(rand() * 95))).join('');
    const methods = ['GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'HEAD'] as const;
    const paths = [
      '/v1/ping',
      '/v1/health',
      '/v1/users',
      `/v1/users/${user}/media`,
      `/v1/users/${user}/events`,
      `/v1/users/${user}/stats`,
      `/v1/users/${user}/sync-complete`,
      '/v1/users/%ZZ/media',
      `/v1/users/${'a'.repeat(2000)}/events`,
      '/',
      '/v1',
      '/v1/',
      '//v1//users',
      '/v1/users/../ping',
      `/v1/${encodeURIComponent(junk(20))}`,
      '/v1/users/00000000-0000-0000-0000-000000000000/stats',
    ];
    const queries = [
      '',
      '?limit=0',
      '?limit=1e3',
      '?limit=%00',
      '?cursor=' + encodeURIComponent(junk(40)),
      '?include_media=maybe',
      `?${junk(10).replace(/[#\s]/g, '')}`,
      '?limit=5&cursor=&include_media=1',
      '?a[b]=1&limit[]=3',
    ];
    const contentTypes = [
      undefined,
      'application/json',
      'text/plain',
      'application/json; charset=utf-8',
      'multipart/form-data; boundary=x',
      'application/x-www-form-urlencoded',
      '',
      'application/jsonx',
    ];
    const bodies = (): string | undefined =>
      pick([
        undefined,
        '',
        '{',
        'null',
        '[]',
        '{}',
        '"str"',
        '12',
        junk(64),
        JSON.stringify({
          media: Array.from({ length: Math.floor(rand() * 250) }, (_, i) =>
            rand() < 0.2
              ? i
              : {
                  id: rand() < 0.1 ? '' : `m${i}`,
                  latitude: rand() * 400 - 200,
                  longitude: junk(3),
                  taken_at: pick([null, 'x', '2024-07-13T00:00:00Z', 5]),
                },
          ),
        }),
        JSON.stringify({
          email: pick([junk(10), 'a@b.co', null, { x: 1 }, 'x'.repeat(5000) + '@example.com']),
          address: pick([null, 'x', { city: 3 }]),
        }),
        JSON.stringify({ media: [{ id: 'x'.repeat(100_000) }] }),
        '{"__proto__": {"polluted": true}, "media": [{"id": "p"}]}',
        '{"constructor": {"prototype": {"x": 1}}}',
      ]);

    // Which answers the fuzz reached, so it is known to exercise more than one path.
    const statuses = new Set<number>();
    for (let i = 0; i < 320; i += 1) {
      const method = pick(methods);
      const body = method === 'GET' || method === 'HEAD' ? undefined : bodies();
      const contentType = pick(contentTypes);
      const headers: Record<string, string> = {};
      if (rand() < 0.8) headers['x-partner-api-key'] = rand() < 0.9 ? ACME : junk(30);
      if (contentType !== undefined) headers['content-type'] = contentType;
      const res = await request(`${origin}${pick(paths)}${pick(queries)}`, { method, headers, body });
      const text = await res.body.text();
      expect(res.statusCode, `${method} ${text.slice(0, 200)}`).toBeLessThan(500);
      expect(text).not.toMatch(/\n\s+at /);
      if (res.statusCode >= 400 && method !== 'HEAD') expect(() => ErrorEnvelope.parse(JSON.parse(text))).not.toThrow();
      statuses.add(res.statusCode);
    }
    expect([...statuses]).toEqual(expect.arrayContaining([200, 400, 401, 404, 405, 415]));
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('answers malformed HTTP with an envelope too', async () => {
    const port = Number(new URL(origin).port);
    const raw = (payload: string) =>
      new Promise<string>((resolve, reject) => {
        const socket = connect(port, '127.0.0.1', () => socket.write(payload));
        let data = '';
        socket.on('data', (chunk) => (data += chunk.toString()));
        socket.on('end', () => resolve(data));
        socket.on('error', reject);
        socket.setTimeout(5000, () => socket.destroy(new Error('timeout')));
      });
    const bad = await raw('GARBAGE / NOT-HTTP\r\n\r\n');
    expect(bad).toMatch(/^HTTP\/1\.1 400/);
    expect(ErrorEnvelope.parse(JSON.parse(bad.slice(bad.indexOf('\r\n\r\n') + 4))).error.code).toBe('invalid_request');
    const huge = await raw(`GET /v1/ping HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`);
    expect(huge).toMatch(/^HTTP\/1\.1 431/);
  });
});
