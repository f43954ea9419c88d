import { once } from 'node:events';
import { connect } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { createApp } from '../../src/service/app.js';
import { INGEST_STEPS, LIFECYCLE_ORDER } from '../../src/service/ingest-steps.js';
import { unavailable } from '../../src/service/store/retry.js';
import type { Store } from '../../src/service/store/types.js';
import {
  ACME,
  anchorCatalog,
  createUser,
  itemAt,
  KEYS,
  LIMITED,
  makeApp,
  openTestStore,
  type TestApp,
} from './helpers.js';

/**
 * The order of INGEST_STEPS, held to the service: for every two neighbouring steps, a request
 * that both would refuse gets the earlier step's answer.
 */

const UNKNOWN_USER = '00000000-0000-4000-8000-000000000000';
const media = (user: string): string => `/v1/users/${user}/media`;
const batch = JSON.stringify({ media: [itemAt('sha256:a1', 1, '2024-07-12T20:00:00Z', 30)] });
const empty = JSON.stringify({ media: [] });
const notJson = '{"media": [';
const huge = (): Buffer => Buffer.alloc(9 * 1024 * 1024, '['); // past the 8 MiB body limit, and not JSON
const json = { 'content-type': 'application/json' };

let t: TestApp | null = null;
let custom: { app: FastifyInstance; store: Store } | null = null;
afterEach(async () => {
  await t?.close();
  t = null;
  if (custom) {
    await custom.app.close();
    await custom.store.close();
    custom = null;
  }
});

/** The envelope's code of an in-process request. */
async function codeOf(
  app: FastifyInstance,
  key: string,
  url: string,
  payload: string | Buffer,
  headers: Record<string, string> = json,
): Promise<string> {
  const res = await app.inject({ method: 'POST', url, headers: { ...headers, 'x-partner-api-key': key }, payload });
  return res.statusCode === 200 ? 'ok' : (res.json() as { error: { code: string } }).error.code;
}

/** Spends the LIMITED key's 3 requests a minute (each answered 404). */
async function spendLimitedQuota(app: FastifyInstance): Promise<void> {
  for (let i = 0; i < 3; i += 1) expect(await codeOf(app, LIMITED, media(UNKNOWN_USER), batch)).toBe('user_not_found');
}

/** An app whose store fails every ingest as a database locked past the retry budget would. */
async function appWithLockedStore(): Promise<{ app: FastifyInstance; user: string }> {
  const store = await openTestStore();
  const locked: Store = {
    ...store,
    applyIngest: () => Promise.reject(unavailable(1, new Error('database is locked'))),
  };
  const app = await createApp({ store: locked, catalog: anchorCatalog(), keys: KEYS });
  custom = { app, store };
  await app.ready();
  return { app, user: await createUser(app, ACME, 'locked@example.com') };
}

/**
 * An app listening on 127.0.0.1 whose one admission slot is held by an ingest whose body is
 * still arriving, and nothing may wait: the next API request is shed. Returns the code a raw
 * request is answered with, and a release of the held connection.
 */
async function appWithFullQueue(): Promise<{ ask: (request: string) => Promise<string>; release: () => void }> {
  t = await makeApp({
    limits: { admission: { maxInFlight: 1, maxQueue: 0, maxWaitMs: 60_000, retryAfterSeconds: 1 } },
  });
  const user = await createUser(t.app, ACME, 'queue@example.com');
  await t.app.listen({ host: '127.0.0.1', port: 0 });
  const port = (t.app.server.address() as { port: number }).port;
  const ask = async (request: string): Promise<string> => {
    const socket = connect(port, '127.0.0.1');
    let text = '';
    socket.on('data', (chunk) => (text += chunk.toString()));
    socket.write(request);
    await once(socket, 'close');
    const body = text.slice(text.indexOf('\r\n\r\n') + 4);
    return (JSON.parse(body) as { error: { code: string } }).error.code;
  };
  const held = connect(port, '127.0.0.1');
  held.write(
    `POST ${media(user)} HTTP/1.1\r\nHost: x\r\nX-Partner-Api-Key: ${ACME}\r\nContent-Type: ` +
      `application/json\r\nContent-Length: ${batch.length}\r\n\r\n{`,
  );
  // The slot is taken once a second request is shed; poll with a request every step refuses alike.
  for (let i = 0; ; i += 1) {
    if (
      (await ask(
        `GET /v1/users/${user}/stats HTTP/1.1\r\nHost: x\r\nX-Partner-Api-Key: ${ACME}\r\nConnection: close\r\n\r\n`,
      )) === 'service_unavailable'
    )
      break;
    if (i > 1000) throw new Error('the held request never took the slot');
  }
  return { ask, release: () => held.destroy() };
}

/** One raw request to an app whose admission queue is full. */
async function whileQueueFull(request: string): Promise<string> {
  const { ask, release } = await appWithFullQueue();
  try {
    return await ask(request);
  } finally {
    release();
  }
}

interface Scenario {
  /** Two neighbouring steps, both of which refuse the request. */
  steps: [string, string];
  /** The earlier step's answer. */
  answer: string;
  run: () => Promise<string>;
}

const SCENARIOS: Scenario[] = [
  {
    steps: ['limits', 'admission'],
    answer: 'invalid_request',
    run: () => whileQueueFull(`POST ${media(UNKNOWN_USER)} HTTP/1.1\r\nContent-Length: 0\r\nConnection: close\r\n\r\n`),
  },
  {
    steps: ['admission', 'key'],
    answer: 'service_unavailable',
    run: () =>
      whileQueueFull(
        `POST ${media(UNKNOWN_USER)} HTTP/1.1\r\nHost: x\r\nX-Partner-Api-Key: sk_wrong\r\nContent-Length: ` +
          `0\r\nConnection: close\r\n\r\n`,
      ),
  },
  {
    steps: ['key', 'rate limit'],
    answer: 'invalid_api_key',
    run: async () => {
      t = await makeApp();
      // The limit is per key: once a key's requests are spent, a wrong key is still a wrong key.
      await spendLimitedQuota(t.app);
      return codeOf(t.app, 'sk_wrong', media(UNKNOWN_USER), batch);
    },
  },
  {
    steps: ['rate limit', 'body'],
    answer: 'rate_limited',
    run: async () => {
      t = await makeApp();
      await spendLimitedQuota(t.app);
      // Refused before the body is read: its size and its content type are never looked at.
      const oversize = await codeOf(t.app, LIMITED, media(UNKNOWN_USER), huge());
      const wrongType = await codeOf(t.app, LIMITED, media(UNKNOWN_USER), 'x', { 'content-type': 'text/plain' });
      return oversize === wrongType ? oversize : `${oversize} / ${wrongType}`;
    },
  },
  {
    steps: ['body', 'plan'],
    answer: 'payload_too_large',
    run: async () => {
      t = await makeApp();
      return codeOf(t.app, ACME, media(await createUser(t.app, ACME, 'body@example.com')), huge());
    },
  },
  {
    steps: ['plan', 'user'],
    answer: 'invalid_request',
    run: async () => {
      t = await makeApp();
      return codeOf(t.app, ACME, media(UNKNOWN_USER), notJson);
    },
  },
  {
    steps: ['user', 'batch'],
    answer: 'user_not_found',
    run: async () => {
      t = await makeApp();
      return codeOf(t.app, ACME, media(UNKNOWN_USER), empty);
    },
  },
  {
    steps: ['batch', 'store'],
    answer: 'empty_batch',
    run: async () => {
      const { app, user } = await appWithLockedStore();
      return codeOf(app, ACME, media(user), empty);
    },
  },
  {
    steps: ['store', 'reply'],
    answer: 'service_unavailable',
    run: async () => {
      const { app, user } = await appWithLockedStore();
      return codeOf(app, ACME, media(user), batch);
    },
  },
];

describe('the ingest request order (INGEST_STEPS)', () => {
  it('the table runs through Fastify stages in their lifecycle order, and the scenarios cover each two neighbours', () => {
    const stages = INGEST_STEPS.map((step) => LIFECYCLE_ORDER.indexOf(step.stage));
    expect(stages.every((stage, i) => stage >= 0 && (i === 0 || stage >= stages[i - 1]!))).toBe(true);
    expect(SCENARIOS.map((scenario) => scenario.steps)).toEqual(
      INGEST_STEPS.slice(1).map((step, i) => [INGEST_STEPS[i]!.name, step.name]),
    );
    for (const scenario of SCENARIOS) {
      expect(
        INGEST_STEPS.find((step) => step.name === scenario.steps[0])!.refuses,
        scenario.steps.join(' > '),
      ).toContain(scenario.answer);
    }
  });

  it.each(SCENARIOS.map((scenario) => [scenario.steps.join(' before '), scenario] as const))(
    '%s',
    async (_name, scenario) => {
      expect(await scenario.run()).toBe(scenario.answer);
    },
  );

  it("the key step's codes are the ones it answers: 401 past the free guesses, 429 past an address's tries", async () => {
    // Waits run at once: the codes are under test here, not the delays.
    const throttle = { freeFailures: 2, baseDelayMs: 1, maxDelayMs: 1, forgetAfterSeconds: 60, maxTriesPerMinute: 4 };
    t = await makeApp({ authThrottle: { ...throttle, setTimer: (fn) => fn() } });
    const codes = new Set<string>();
    for (let i = 0; i < 6; i += 1) codes.add(await codeOf(t.app, 'sk_wrong', media(UNKNOWN_USER), batch));
    expect([...codes]).toEqual(INGEST_STEPS.find((step) => step.name === 'key')!.refuses);
  });

  it('a request no step refuses is stored and answered', async () => {
    t = await makeApp();
    expect(await codeOf(t.app, ACME, media(await createUser(t.app, ACME, 'ok@example.com')), batch)).toBe('ok');
  });
});
