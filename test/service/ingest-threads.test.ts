import { beforeAll, describe, expect, it } from 'vitest';
import { Agent, request } from 'undici';
import { createApp } from '../../src/service/app.js';
import { createIngestPlanner, defaultIngestThreads } from '../../src/service/ingest-threads.js';
import { openStore } from '../../src/service/store/store.js';
import { buildMatcherTables, type MatcherTables } from '../../src/service/matching/index.js';
import { ACME, anchorCatalog, createUser, GLOBEX, itemAt, KEYS, LIMITED, makeApp, type TestApp } from './helpers.js';

/**
 * `serve` plans ingest batches in a thread; tests elsewhere run them in the request's thread.
 * The same requests must get the same answers both ways, errors and their order included.
 */
const EVENT1 = '2024-07-13T00:00:00Z'; // The Example Band at venue 1, 20:00 New York time
const EVENT3 = '2024-03-30T19:00:00Z'; // Northbank FC vs Riverside United at venue 3

interface Sent {
  name: string;
  /** Raw request body (a string is sent as is). */
  body: string | undefined;
  /** Post to a user id that does not exist. */
  unknownUser?: boolean;
  key?: string;
}

const json = (value: unknown): string => JSON.stringify(value);
const many = (n: number, prefix: string) =>
  Array.from({ length: n }, (_, i) => itemAt(`${prefix}${i}`, 1, EVENT1, i % 90));

const REQUESTS: Sent[] = [
  {
    name: 'a small matched batch (a pooled buffer, copied to the thread)',
    body: json({ media: [itemAt('a', 1, EVENT1), itemAt('b', 3, EVENT3, 30)] }),
  },
  { name: 'a 200-item batch (its own buffer, moved to the thread)', body: json({ media: many(200, 'big-') }) },
  {
    name: 'rejections, defaults and a duplicate',
    body: json({
      media: [
        itemAt('dup', 1, EVENT1),
        { id: 'nowhere', taken_at: EVENT1, latitude: -60, longitude: -170 },
        { id: 'no-place', taken_at: EVENT1 },
        { id: 'no-time', latitude: 1, longitude: 2 },
        { id: 'bad-lat', taken_at: EVENT1, latitude: 91, longitude: 0 },
        {
          id: 'video',
          taken_at: EVENT1,
          latitude: 40.7505,
          longitude: -73.9934,
          media_type: 'video',
          thumbnail_url: 'javascript:void(0)',
        },
        itemAt('dup', 3, EVENT3),
        {
          id: 'nulls',
          taken_at: EVENT1,
          latitude: 40.7505,
          longitude: -73.9934,
          media_type: null,
          thumbnail_url: null,
        },
      ],
    }),
  },
  {
    name: 're-sending an item that no longer matches',
    body: json({ media: [{ id: 'a', taken_at: '2019-01-01T00:00:00Z', latitude: 0, longitude: 0 }] }),
  },
  { name: 'not JSON', body: '{"media": [' },
  { name: 'not JSON, to an unknown user (the body is refused first)', body: '{"media": [', unknownUser: true },
  {
    name: 'an empty batch to an unknown user (the user is refused first)',
    body: json({ media: [] }),
    unknownUser: true,
  },
  { name: 'a poisoned body', body: '{"media":[{"id":"p","__proto__":{"x":1}}]}' },
  { name: 'a poisoned body spelled with escapes', body: '{"media":[{"id":"p","\\u005f_proto__":{"x":1}}]}' },
  { name: 'constructor.prototype', body: '{"media":[{"id":"p","constructor":{"prototype":{"x":1}}}]}' },
  { name: 'an empty batch', body: json({ media: [] }) },
  { name: 'no media array', body: json({ items: [] }) },
  { name: 'a blank body', body: '  \n' },
  { name: 'no body', body: undefined },
  { name: '201 items', body: json({ media: Array.from({ length: 201 }, (_, i) => ({ id: `m${i}` })) }) },
  { name: 'an item without an id', body: json({ media: [{ id: 'ok' }, { taken_at: EVENT1 }] }) },
  { name: 'another partner’s user', body: json({ media: [itemAt('x', 1, EVENT1)] }), key: GLOBEX },
];

type Answer = { status: number; body: unknown };

async function answers(t: TestApp): Promise<Answer[]> {
  const user = await createUser(t.app, ACME, 'threads@example.com');
  const out: Answer[] = [];
  for (const sent of REQUESTS) {
    const id = sent.unknownUser ? '00000000-0000-4000-8000-000000000000' : user;
    const res = await t.app.inject({
      method: 'POST',
      url: `/v1/users/${id}/media`,
      headers: { 'x-partner-api-key': sent.key ?? ACME, 'content-type': 'application/json' },
      ...(sent.body === undefined ? {} : { payload: sent.body }),
    });
    out.push({ status: res.statusCode, body: res.json() });
  }
  return out;
}

describe('ingest planned in a thread', () => {
  let inline: Answer[];
  let threaded: Answer[];
  beforeAll(async () => {
    const a = await makeApp({ ingestThreads: 0 });
    const b = await makeApp({ ingestThreads: 1 });
    try {
      [inline, threaded] = [await answers(a), await answers(b)];
    } finally {
      await a.close();
      await b.close();
    }
  });

  it.each(REQUESTS.map((sent, index) => [sent.name, index] as const))(
    '%s: the same answer both ways',
    (_name, index) => {
      expect(threaded[index]).toEqual(inline[index]);
    },
  );

  it('really matched, refused and ordered the errors (not two equal failures)', () => {
    const statuses = threaded.map((answer) => answer.status);
    expect(statuses).toEqual([200, 200, 200, 200, 400, 400, 404, 400, 400, 400, 400, 400, 400, 400, 413, 400, 404]);
    const code = (i: number) => (threaded[i]!.body as { error: { code: string } }).error.code;
    expect([code(4), code(5), code(6), code(10), code(14), code(15), code(16)]).toEqual([
      'invalid_request',
      'invalid_request',
      'user_not_found',
      'empty_batch',
      'invalid_batch_size',
      'invalid_media_item',
      'user_not_found',
    ]);
    const first = threaded[0]!.body as { matched: number; events: Array<{ id: number }> };
    expect(first.matched).toBe(2);
    expect(first.events.map((event) => event.id)).toEqual([1, 3]);
    expect((threaded[1]!.body as { accepted: number; matched: number }).matched).toBe(200);
  });
});

describe('defaultIngestThreads', () => {
  it('starts a thread only where cores are left for the clients and the rest of the machine', () => {
    expect([1, 2, 3, 4, 16].map((cores) => defaultIngestThreads(cores))).toEqual([0, 0, 0, 1, 1]);
  });
});

describe('createIngestPlanner', () => {
  const tables = buildMatcherTables(anchorCatalog());
  const body = (items: unknown[]) => Buffer.from(JSON.stringify({ media: items }));

  it(
    'moves a body that owns its memory to the thread, copies one that shares the pool, and plans both as this ' +
      'thread does',
    async () => {
      const inline = await createIngestPlanner({ threads: 0, tables });
      const threaded = await createIngestPlanner({ threads: 1, tables });
      try {
        const big = body(many(200, 'own-'));
        const expected = await inline.plan(Buffer.from(big));
        expect(big.byteOffset === 0 && big.byteLength === big.buffer.byteLength).toBe(true);
        const planned = await threaded.plan(big);
        expect(planned).toEqual(expected);
        expect(big.byteLength).toBe(0); // moved: this thread no longer holds the bytes

        const small = Buffer.from(
          '{"media":[{"id":"s","taken_at":"2024-07-13T00:00:00Z","latitude":40.7505,"longitude":-73.9934}]}',
        );
        expect(small.byteLength).toBeLessThan(small.buffer.byteLength); // a slice of Node's pool
        const smallPlan = await threaded.plan(small);
        expect(smallPlan).toEqual(await inline.plan(small));
        expect(smallPlan.ok && smallPlan.plan.matched).toBe(1);
        expect(small.toString()).toContain('"id":"s"'); // copied: the pool is untouched
      } finally {
        await threaded.close();
        await inline.close();
      }
    },
  );

  it('a batch that fails in the thread fails alone: the promise rejects, and the thread plans the next batch', async () => {
    // A defect stand-in: tables whose licence column is missing, so matching an item at an
    // event throws inside the thread (an item matching nothing never reads it).
    const broken = { ...tables, timelines: { ...tables.timelines, licensed: null } } as unknown as MatcherTables;
    const planner = await createIngestPlanner({ threads: 1, tables: broken });
    try {
      await expect(planner.plan(body([itemAt('at-event', 1, EVENT1)]))).rejects.toThrow(TypeError);
      const next = await planner.plan(body([{ id: 'nowhere', taken_at: EVENT1, latitude: -60, longitude: -170 }]));
      expect(next.ok && next.plan.accepted).toBe(1);
    } finally {
      await planner.close();
    }
  });

  it('fails its start-up, not the process, when the thread cannot start', async () => {
    const broken = createIngestPlanner({ threads: 1, tables: null as unknown as MatcherTables });
    await expect(broken).rejects.toMatchObject({ code: 'internal_error', message: /the ingest thread did not start/ });
  });
});

describe.each([0, 1])('with %i ingest thread(s)', (ingestThreads) => {
  it('refuses a throttled request before its body is planned: every request counts, readable or not', async () => {
    const t = await makeApp({ ingestThreads });
    try {
      const user = await createUser(t.app, LIMITED, 'limited@example.com'); // 1 of 3
      const send = (payload: string) =>
        t.app.inject({
          method: 'POST',
          url: `/v1/users/${user}/media`,
          headers: { 'x-partner-api-key': LIMITED, 'content-type': 'application/json' },
          payload,
        });
      expect((await send('{"media": [')).statusCode).toBe(400); // 2 of 3
      const good = JSON.stringify({ media: [itemAt('q', 1, EVENT1)] });
      expect((await send(good)).statusCode).toBe(200); // 3 of 3
      // Past the limit the body is neither read nor parsed: unreadable or good, both 429.
      expect((await send('{"media": [')).statusCode).toBe(429);
      expect((await send(good)).statusCode).toBe(429);
    } finally {
      await t.close();
    }
  });

  // Without Connection: close, close() waits for the clients' keep-alive (a minute here): the timeout fails it.
  it('closes while ingest requests are in flight: their answers say Connection: close, so close() does not wait for ' +
    'the clients', {
    timeout: 15_000,
  }, async () => {
    const store = openStore({ path: ':memory:' });
    const app = await createApp({ store, catalog: anchorCatalog(), keys: KEYS, ingestThreads });
    // Requests wait in preHandler until close() has begun; the test's preClose hook (after the
    // app's own) lets them go.
    let arrived = 0;
    let allIn!: () => void;
    const inFlight = new Promise<void>((resolve) => (allIn = resolve));
    let letGo!: () => void;
    const gate = new Promise<void>((resolve) => (letGo = resolve));
    app.addHook('preHandler', async (request) => {
      if (!request.url.endsWith('/media')) return;
      arrived += 1;
      if (arrived === 4) allIn();
      await gate;
    });
    app.addHook('preClose', (done) => {
      letGo();
      done();
    });
    await app.listen({ host: '127.0.0.1', port: 0 });
    const origin = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;
    const agent = new Agent({ keepAliveTimeout: 60_000, connections: 4 });
    try {
      const user = await createUser(app, ACME, 'closing@example.com');
      const body = JSON.stringify({ media: many(200, 'closing-') });
      const answers = Array.from({ length: 4 }, () =>
        request(`${origin}/v1/users/${user}/media`, {
          method: 'POST',
          dispatcher: agent,
          headers: { 'x-partner-api-key': ACME, 'content-type': 'application/json' },
          body,
        }),
      );
      await inFlight;
      await app.close();
      for (const answer of await Promise.all(answers)) {
        expect(answer.statusCode).toBe(200);
        expect(answer.headers.connection).toBe('close');
        await answer.body.dump();
      }
    } finally {
      await agent.close();
      await store.close();
    }
  });
});
