import { once } from 'node:events';
import { connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { ErrorEnvelope } from '../../src/contract/index.js';
import { createAdmission } from '../../src/service/admission.js';
import { ACME, createUser, makeApp, type TestApp } from './helpers.js';

const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

describe('the admission queue', () => {
  it('runs maxInFlight at once, queues up to maxQueue, sheds the rest with 503 and Retry-After', async () => {
    const admission = createAdmission({ maxInFlight: 1, maxQueue: 2, maxWaitMs: 10_000, retryAfterSeconds: 2 });
    const turns: Array<{ error: unknown; leave?: () => void }> = [];
    for (let i = 0; i < 4; i += 1) admission.enter((error, leave) => (turns[i] = { error, leave }));
    expect(turns[0]?.error).toBeNull();
    expect(turns[1]).toBeUndefined();
    expect(turns[2]).toBeUndefined();
    expect(turns[3]?.error).toMatchObject({
      code: 'service_unavailable',
      status: 503,
      headers: { 'retry-after': '2' },
    });
    expect(admission.stats()).toEqual({ inFlight: 1, queued: 2, shed: 1 });

    turns[0]?.leave?.();
    turns[0]?.leave?.(); // leaving twice frees one slot only
    // The next one is admitted on a later turn of the event loop, never inside `leave`.
    expect(turns[1]).toBeUndefined();
    await nextTurn();
    expect(turns[1]?.error).toBeNull();
    expect(turns[2]).toBeUndefined();
    expect(admission.stats()).toEqual({ inFlight: 1, queued: 1, shed: 1 });
  });

  it('starts at most startsPerTurn requests per turn of the loop, even when each one finishes at once', async () => {
    // A synchronous handler frees its slot before the next socket is read; without a limit
    // per turn a whole poll phase of requests would run back to back ahead of /ping.
    const admission = createAdmission({
      maxInFlight: 8,
      startsPerTurn: 2,
      maxQueue: 100,
      maxWaitMs: 10_000,
      retryAfterSeconds: 1,
    });
    const started: number[] = [];
    let turn = 0;
    for (let i = 0; i < 5; i += 1) {
      admission.enter((error, leave) => {
        expect(error).toBeNull();
        started.push(turn);
        leave?.();
      });
    }
    expect(started).toEqual([0, 0]);
    expect(admission.stats()).toEqual({ inFlight: 0, queued: 3, shed: 0 });
    for (turn = 1; turn <= 3; turn += 1) await nextTurn();
    expect(started).toEqual([0, 0, 1, 1, 2]);
    expect(admission.stats()).toEqual({ inFlight: 0, queued: 0, shed: 0 });
  });

  it('sheds a request that waited past maxWaitMs, and skips one whose client left', async () => {
    let now = 0;
    const admission = createAdmission({
      maxInFlight: 1,
      maxQueue: 10,
      maxWaitMs: 1000,
      retryAfterSeconds: 1,
      clock: () => now,
    });
    const seen: string[] = [];
    let leaveFirst = (): void => undefined;
    admission.enter((_e, leave) => (leaveFirst = leave ?? leaveFirst));
    admission.enter((error) => seen.push(`stale:${error ? error.code : 'ok'}`));
    const gone = admission.enter(() => seen.push('gone'));
    admission.enter((error) => seen.push(`fresh:${error ? error.code : 'ok'}`));
    gone.cancel();
    now = 1500;
    const fresh = () => admission.enter((error) => seen.push(`late:${error ? error.code : 'ok'}`));
    fresh();
    leaveFirst();
    await nextTurn();
    // Both early waiters are past their time; the cancelled one is skipped silently.
    expect(seen).toEqual(['stale:service_unavailable', 'fresh:service_unavailable', 'late:ok']);
  });
});

let t: TestApp | null = null;
afterEach(async () => {
  await t?.close();
  t = null;
});

async function listen(options: Parameters<typeof makeApp>[0]): Promise<{ port: number; user: string }> {
  t = await makeApp(options);
  const user = await createUser(t.app, ACME, 'load@example.com');
  await t.app.listen({ host: '127.0.0.1', port: 0 });
  const address = t.app.server.address();
  return { port: typeof address === 'object' && address ? address.port : 0, user };
}

/** A raw connection: write what you like, read the whole answer once the server ends it. */
function rawSocket(port: number): { socket: Socket; text: () => string; ended: Promise<void> } {
  const socket = connect(port, '127.0.0.1');
  let data = '';
  socket.on('data', (chunk) => (data += chunk.toString()));
  socket.setTimeout(10_000, () => socket.destroy(new Error('no answer in 10 s')));
  const ended = new Promise<void>((resolve, reject) => {
    socket.on('close', () => resolve());
    socket.on('error', reject);
  });
  return { socket, text: () => data, ended };
}

/** Reads until the first full response head and body have arrived (by Content-Length). */
async function firstResponse(
  socket: Socket,
  text: () => string,
): Promise<{ status: number; headers: string; body: string }> {
  for (;;) {
    const all = text();
    const split = all.indexOf('\r\n\r\n');
    if (split >= 0) {
      const head = all.slice(0, split);
      const length = Number(/content-length: (\d+)/i.exec(head)?.[1] ?? 0);
      if (all.length >= split + 4 + length) {
        return {
          status: Number(head.slice(9, 12)),
          headers: head.toLowerCase(),
          body: all.slice(split + 4, split + 4 + length),
        };
      }
    }
    await once(socket, 'data');
  }
}

const postHead = (path: string, key: string, length: number): string =>
  `POST ${path} HTTP/1.1\r\nHost: x\r\nX-PARTNER-API-KEY: ${key}\r\nContent-Type: ` +
  `application/json\r\nContent-Length: ${length}\r\n\r\n`;

async function get(port: number, path: string): Promise<{ status: number; headers: string; body: string }> {
  const raw = rawSocket(port);
  raw.socket.write(`GET ${path} HTTP/1.1\r\nHost: x\r\nX-PARTNER-API-KEY: ${ACME}\r\nConnection: close\r\n\r\n`);
  await raw.ended;
  return firstResponse(raw.socket, raw.text);
}

describe('the service under pressure', () => {
  it('answers /ping and /health while the API queue is full, and sheds with the envelope', async () => {
    const { port, user } = await listen({
      limits: { admission: { maxInFlight: 1, maxQueue: 1, maxWaitMs: 60_000, retryAfterSeconds: 3 } },
    });
    const body = JSON.stringify({ media: [{ id: 'a', latitude: 1, longitude: 1, taken_at: '2024-01-01T00:00:00Z' }] });
    // The first request holds the only slot while its body trickles in; the second waits.
    const running = rawSocket(port);
    running.socket.write(postHead(`/v1/users/${user}/media`, ACME, body.length) + body.slice(0, 5));
    const waiting = rawSocket(port);
    waiting.socket.write(postHead(`/v1/users/${user}/media`, ACME, body.length) + body.slice(0, 5));
    // Known to be in line once the service says so: poll its own count, turn by turn.
    const shed = await (async () => {
      for (let i = 0; i < 1000; i += 1) {
        const res = await get(port, `/v1/users/${user}/stats`);
        if (res.status === 503) return res;
        expect(res.status).toBe(200); // admitted before the two arrived
      }
      throw new Error('never shed');
    })();
    expect(shed.headers).toMatch(/\r\nretry-after: 3(\r|$)/);
    expect(ErrorEnvelope.parse(JSON.parse(shed.body)).error.code).toBe('service_unavailable');

    expect((await get(port, '/v1/ping')).status).toBe(200);
    expect((await get(port, '/v1/health')).status).toBe(200);

    running.socket.end(body.slice(5));
    waiting.socket.end(body.slice(5));
    expect((await firstResponse(running.socket, running.text)).status).toBe(200);
    expect((await firstResponse(waiting.socket, waiting.text)).status).toBe(200);
  });

  it('cuts the connection after a 401 instead of reading a slow body', async () => {
    const { port, user } = await listen({});
    const raw = rawSocket(port);
    raw.socket.write(postHead(`/v1/users/${user}/media`, 'sk_wrong', 100_000) + '{"media": [');
    const res = await firstResponse(raw.socket, raw.text);
    expect(res.status).toBe(401);
    expect(res.headers).toContain('connection: close');
    await raw.ended; // the server closed it with 99,990 bytes still owed
  });

  it('answers 408 request_timeout when a body stops arriving', async () => {
    const { port, user } = await listen({ limits: { requestTimeoutMs: 300, timeoutCheckIntervalMs: 50 } });
    const raw = rawSocket(port);
    raw.socket.write(postHead(`/v1/users/${user}/media`, ACME, 1000) + '{"media": [');
    await raw.ended;
    const res = await firstResponse(raw.socket, raw.text);
    expect(res.status).toBe(408);
    expect(ErrorEnvelope.parse(JSON.parse(res.body)).error.code).toBe('request_timeout');
  });

  it('answers an HTTP/1.1 request without Host with the envelope; HTTP/1.0 needs none', async () => {
    const { port } = await listen({});
    const noHost = rawSocket(port);
    noHost.socket.write('GET /v1/ping HTTP/1.1\r\nConnection: close\r\n\r\n');
    await noHost.ended;
    const res = await firstResponse(noHost.socket, noHost.text);
    expect(res.status).toBe(400);
    expect(ErrorEnvelope.parse(JSON.parse(res.body)).error).toMatchObject({
      code: 'invalid_request',
      message: expect.stringContaining('Host'),
    });
    const old = rawSocket(port);
    old.socket.write('GET /v1/ping HTTP/1.0\r\n\r\n');
    await old.ended;
    expect((await firstResponse(old.socket, old.text)).status).toBe(200);
  });

  it('caps open connections', async () => {
    const { port } = await listen({ limits: { maxConnections: 3 } });
    expect(t?.app.server.maxConnections).toBe(3);
    const open = [rawSocket(port), rawSocket(port), rawSocket(port)];
    await Promise.all(open.map((raw) => once(raw.socket, 'connect')));
    const extra = rawSocket(port);
    extra.socket.write('GET /v1/ping HTTP/1.1\r\nHost: x\r\n\r\n');
    // Node closes a connection past the cap before reading it: no answer, a reset or an end.
    await extra.ended.catch(() => undefined);
    expect(extra.text()).toBe('');
    for (const raw of open) raw.socket.destroy();
    await Promise.all(open.map((raw) => raw.ended));
  });
});
