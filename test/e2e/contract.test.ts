import { connect } from 'node:net';
import { join } from 'node:path';
import { Agent, request } from 'undici';
import { describe, expect, it } from 'vitest';
import { collect, spawnCamroll } from './helpers/camroll.js';
import { useTempHomes } from './helpers/temp-homes.js';
import { startServe } from './helpers/serve.js';
import { itemAt } from '../service/helpers.js';

const KEY = 'sk_test_e2e_contract_key';
const BOM = Buffer.from([0xef, 0xbb, 0xbf]);

describe('the contract as clients meet it (real binary)', () => {
  const tempHome = useTempHomes();

  it('70 wrong keys at once from one address: 30 are tried (401, slowed down), the rest get 429 with the key unread; another address is not held up', async () => {
    const home = tempHome();
    const serve = await startServe({ env: { ...home.env, CAMROLL_API_KEY: KEY }, db: ':memory:' });
    // Another client: its connections come from 127.0.0.2 (undici's connect options take no localAddress).
    const elsewhere = new Agent({
      connect: (options, callback) => {
        const socket = connect({ host: options.hostname, port: Number(options.port), localAddress: '127.0.0.2' });
        socket.once('connect', () => callback(null, socket));
        socket.once('error', (error) => callback(error, null));
      },
    });
    try {
      const health = async (key: string, dispatcher?: Agent) => {
        const started = performance.now();
        const res = await request(`${serve.baseUrl}/health`, { headers: { 'x-partner-api-key': key }, dispatcher });
        const body = (await res.body.json()) as { error?: { code: string; details?: { per?: string } } };
        return {
          status: res.statusCode,
          body,
          retryAfter: res.headers['retry-after'],
          ms: performance.now() - started,
          doneAt: performance.now(),
        };
      };
      // All from 127.0.0.1, on 70 connections: before, each beyond the 8 waiting got its 401 at once.
      const wrong = Array.from({ length: 70 }, (_, i) => health(`sk_guess_${i}`));
      const right = await health(KEY, elsewhere);
      expect(right.status).toBe(200);
      const answers = await Promise.all(wrong);
      const tried = answers.filter((answer) => answer.status === 401);
      const refused = answers.filter((answer) => answer.status === 429);
      expect(tried).toHaveLength(30);
      expect(refused).toHaveLength(40);
      for (const answer of tried) {
        expect(answer.body.error?.code).toBe('invalid_api_key');
        expect(answer.retryAfter).toBeUndefined();
      }
      for (const answer of refused) {
        expect(answer.body.error).toMatchObject({ code: 'rate_limited', details: { per: 'address' } });
        expect(Number(answer.retryAfter)).toBeGreaterThanOrEqual(1);
        expect(Number(answer.retryAfter)).toBeLessThanOrEqual(60);
      }
      // Still slowed down: some 401s waited (the longest wait is 4 s; a wait never ends early).
      const slowest = tried.reduce((a, b) => (a.ms > b.ms ? a : b));
      expect(slowest.ms).toBeGreaterThanOrEqual(2_000);
      // The right key from another address, sent after the wrong ones, was answered before the slowest.
      expect(right.doneAt).toBeLessThan(slowest.doneAt);
      // From the guessing address even a right key is not looked at now; from another it is.
      expect((await health(KEY)).status).toBe(429);
      expect((await health(KEY, elsewhere)).status).toBe(200);
    } finally {
      await elsewhere.close();
      await serve.stop();
    }
  }, 60_000);

  it.each([['0'], ['1']])(
    'ignores one BOM before the body on every route that takes one (--ingest-threads %s)',
    async (threads) => {
      const home = tempHome();
      const serve = await startServe({
        env: { ...home.env, CAMROLL_API_KEY: KEY },
        db: join(home.dir, 'service.db'),
        args: ['--ingest-threads', threads],
      });
      try {
        const post = async (path: string, text: string, prefix: Buffer = BOM) => {
          const res = await request(`${serve.baseUrl}${path}`, {
            method: 'POST',
            headers: { 'x-partner-api-key': KEY, 'content-type': 'application/json' },
            body: Buffer.concat([prefix, Buffer.from(text)]),
          });
          return { status: res.statusCode, json: (await res.body.json()) as any };
        };
        const created = await post('/users', JSON.stringify({ email: 'bom@example.com', first_name: 'constructor' }));
        expect(created.status).toBe(201);
        const user = created.json.user_id as string;
        expect((await post('/users', JSON.stringify({ email: 'bom-plain@example.com' }))).status).toBe(201);
        const batch = await post(
          `/users/${user}/media`,
          JSON.stringify({ media: [itemAt('bom-1', 1, '2024-07-13T00:00:00Z')] }),
        );
        expect(batch.status).toBe(200);
        expect(batch.json).toMatchObject({ accepted: 1, matched: 1 });
        const poisonWord = await post(
          `/users/${user}/media`,
          JSON.stringify({ media: [itemAt('bom-2', 1, '2024-07-13T00:00:00Z', 0, { filename: 'prototype.jpg' })] }),
        );
        expect(poisonWord.status).toBe(200);
        expect((await post(`/users/${user}/sync-complete`, '{}')).status).toBe(200);
        expect((await post(`/users/${user}/sync-complete`, '')).status).toBe(200);
        // Two BOMs are not JSON, on every route alike.
        for (const path of ['/users', `/users/${user}/media`, `/users/${user}/sync-complete`]) {
          const twice = await post(path, '{}', Buffer.concat([BOM, BOM]));
          expect(twice.status, path).toBe(400);
          expect(twice.json.error.code).toBe('invalid_request');
        }
      } finally {
        await serve.stop();
      }
    },
    60_000,
  );

  it(
    'camroll openapi: idn-email, a boolean include_media, a starts_at_local without offset, open error codes, a ' +
      'contact',
    async () => {
      const result = await collect(spawnCamroll(['openapi'], { env: tempHome().env }));
      expect(result.code).toBe(0);
      const doc = JSON.parse(result.stdout);
      const { schemas } = doc.components;
      expect(schemas.UserCreateRequest.properties.email.format).toBe('idn-email');
      const include = doc.paths['/users/{user_id}/events'].get.parameters.find(
        (p: { name: string }) => p.name === 'include_media',
      );
      expect(include.schema.type).toBe('boolean');
      const startsAt = new RegExp(schemas.Event.properties.starts_at_local.pattern);
      expect(startsAt.test('2024-07-12T20:00:00')).toBe(true);
      expect(startsAt.test('2024-07-12T20:00:00Z')).toBe(false);
      expect(startsAt.test('2024-07-12T20:00:00+02:00')).toBe(false);
      expect(schemas.ErrorEnvelope.properties.error.properties.code.enum).toBeUndefined();
      const code400 =
        doc.paths['/users'].post.responses['400'].content['application/json'].schema.allOf[1].properties.error
          .properties.code;
      expect(code400.anyOf).toEqual([
        { type: 'string', enum: expect.arrayContaining(['invalid_email']) },
        { type: 'string' },
      ]);
      expect(doc.info.contact.name).toEqual(expect.any(String));
    },
  );
});
