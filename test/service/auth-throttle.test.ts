import { afterEach, describe, expect, it, vi } from 'vitest';
import { ADMISSION_DEFAULTS } from '../../src/service/admission.js';
import {
  addressKey,
  AUTH_THROTTLE_DEFAULTS,
  createAuthThrottle,
  type AuthThrottleOptions,
} from '../../src/service/auth-throttle.js';
import { ACME, makeApp, type TestApp } from './helpers.js';

/** A timer seam the test fires by hand: nothing waits on the real clock. */
function manualTimers() {
  const pending: Array<{ ms: number; fire: () => void }> = [];
  let onSet: (() => void) | null = null;
  return {
    pending,
    setTimer: (fire: () => void, ms: number) => {
      pending.push({ ms, fire });
      onSet?.();
    },
    /** Resolves at the next timer set. */
    nextSet: () => new Promise<void>((resolve) => (onSet = resolve)),
    fireAll: () => {
      for (const timer of pending.splice(0)) timer.fire();
    },
  };
}

const settled = async (promise: Promise<void> | null): Promise<boolean> => {
  if (promise === null) return true;
  let done = false;
  void promise.then(() => (done = true));
  await new Promise((resolve) => setImmediate(resolve));
  return done;
};

describe('the wrong-key throttle', () => {
  const options = (extra: Partial<AuthThrottleOptions> = {}): AuthThrottleOptions => ({
    freeFailures: 2,
    baseDelayMs: 100,
    maxDelayMs: 400,
    forgetAfterSeconds: 60,
    ...extra,
  });

  it('answers the first wrong keys at once, then waits twice as long each time up to the cap, per address', async () => {
    const timers = manualTimers();
    const throttle = createAuthThrottle(options({ clock: () => 0, setTimer: timers.setTimer }));
    expect([throttle.fail('a'), throttle.fail('a')]).toEqual([null, null]);
    const waits = [throttle.fail('a'), throttle.fail('a'), throttle.fail('a'), throttle.fail('a')];
    expect(timers.pending.map((t) => t.ms)).toEqual([100, 200, 400, 400]);
    // Another address has its own run.
    expect(throttle.fail('b')).toBeNull();
    // A wait ends with its timer, not before.
    expect(await settled(waits[0]!)).toBe(false);
    timers.fireAll();
    for (const wait of waits) expect(await settled(wait)).toBe(true);
  });

  it('forgets a run after forgetAfterSeconds without a wrong key; a long run stays at the cap', () => {
    let now = 0;
    const timers = manualTimers();
    const throttle = createAuthThrottle(
      options({ clock: () => now, setTimer: timers.setTimer, maxWaitingPerAddress: 1_000_000, maxWaiting: 1_000_000 }),
    );
    for (let i = 0; i < 5_000; i += 1) throttle.fail('a');
    expect(timers.pending.at(-1)?.ms).toBe(400);
    timers.fireAll();
    now = 59_999;
    expect(throttle.fail('a')).not.toBeNull();
    now = 59_999 + 60_000;
    expect(throttle.fail('a')).toBeNull();
  });

  it('bounds the answers waiting per address and in all: past a bound the 401 goes at once', async () => {
    const timers = manualTimers();
    const throttle = createAuthThrottle(
      options({ freeFailures: 0, clock: () => 0, setTimer: timers.setTimer, maxWaitingPerAddress: 2, maxWaiting: 3 }),
    );
    expect(throttle.fail('a')).not.toBeNull();
    expect(throttle.fail('a')).not.toBeNull();
    expect(throttle.fail('a')).toBeNull(); // a has 2 waiting
    expect(throttle.fail('b')).not.toBeNull();
    expect(throttle.fail('c')).toBeNull(); // 3 waiting in all
    timers.pending.shift()?.fire();
    await new Promise((resolve) => setImmediate(resolve));
    expect(throttle.fail('a')).not.toBeNull(); // a slot is free again
  });

  it('tracks at most maxAddresses, forgetting the address whose last wrong key is oldest', () => {
    const timers = manualTimers();
    const throttle = createAuthThrottle(
      options({ freeFailures: 1, clock: () => 0, setTimer: timers.setTimer, maxAddresses: 2 }),
    );
    throttle.fail('a');
    throttle.fail('b');
    throttle.fail('c'); // a is forgotten
    expect(throttle.fail('a')).toBeNull();
    expect(throttle.fail('c')).not.toBeNull();
  });

  it('counts an IPv6 address with its /64, and an IPv4-mapped one as its IPv4 address', () => {
    const table: Array<[string, string]> = [
      ['192.0.2.7', '192.0.2.7'],
      ['::ffff:192.0.2.7', '192.0.2.7'],
      ['2001:db8:0:1::5', '2001:db8:0:1::/64'],
      ['2001:DB8:0:1:ffff:ffff:ffff:ffff', '2001:db8:0:1::/64'],
      ['2001:0db8:0000:0001:0000:0000:0000:0001', '2001:db8:0:1::/64'],
      ['2001:db8::1', '2001:db8:0:0::/64'],
      ['2001:db8:0:2::1', '2001:db8:0:2::/64'],
      ['fe80::1%eth0', 'fe80:0:0:0::/64'],
      ['::1', '0:0:0:0::/64'],
    ];
    for (const [address, key] of table) expect(addressKey(address), address).toBe(key);
    const timers = manualTimers();
    const throttle = createAuthThrottle(options({ freeFailures: 1, clock: () => 0, setTimer: timers.setTimer }));
    expect(throttle.fail('2001:db8:0:1::5')).toBeNull();
    expect(throttle.fail('2001:db8:0:1::6')).not.toBeNull(); // the same /64
    expect(throttle.fail('2001:db8:0:2::5')).toBeNull(); // another one
  });

  it('counts a client already gone (no address: its socket closed) without failing the request', () => {
    const timers = manualTimers();
    const throttle = createAuthThrottle(options({ freeFailures: 1, clock: () => 0, setTimer: timers.setTimer }));
    expect(throttle.fail(undefined)).toBeNull();
    expect(throttle.fail(undefined)).not.toBeNull();
    expect(throttle.fail('192.0.2.1')).toBeNull();
  });

  it('releaseAll ends every wait at once, and later wrong keys do not wait (the service is closing)', async () => {
    const timers = manualTimers();
    const throttle = createAuthThrottle(options({ freeFailures: 0, clock: () => 0, setTimer: timers.setTimer }));
    const waits = [throttle.fail('a'), throttle.fail('b')];
    throttle.releaseAll();
    for (const wait of waits) expect(await settled(wait)).toBe(true);
    timers.fireAll(); // a late timer is harmless
    // A wrong key still arriving on an open connection while the service closes: no wait to hold close().
    expect(throttle.fail('a')).toBeNull();
    expect(timers.pending).toEqual([]);
  });

  it('releaseAll clears the wait timers, so a closed service does not stay up until the longest wait is over', async () => {
    vi.useFakeTimers();
    try {
      const throttle = createAuthThrottle(options({ freeFailures: 0, clock: () => 0 }));
      const waits = [throttle.fail('a'), throttle.fail('a'), throttle.fail('b')];
      expect(vi.getTimerCount()).toBe(3);
      throttle.releaseAll();
      expect(vi.getTimerCount()).toBe(0);
      await Promise.all(waits);
      // A wait its timer ends clears nothing twice and leaves nothing behind.
      const late = throttle.fail('c');
      await vi.advanceTimersByTimeAsync(100);
      await late;
      expect(vi.getTimerCount()).toBe(0);
    } finally {
      vi.useRealTimers();
    }
  });
});

let t: TestApp | null = null;
afterEach(async () => {
  await t?.close();
  t = null;
});

describe('wrong keys over HTTP', () => {
  it(
    'answers every wrong key 401 (within the tries of a minute), slower after a few; right keys, other addresses and ' +
      'missing keys are not delayed',
    async () => {
      const timers = manualTimers();
      t = await makeApp({
        authThrottle: {
          ...AUTH_THROTTLE_DEFAULTS,
          freeFailures: 3,
          baseDelayMs: 1000,
          maxDelayMs: 8000,
          // The service's clock stands still here: the minute's budget of tries is tested below.
          maxTriesPerMinute: 1000,
          setTimer: timers.setTimer,
        },
      });
      const app = t.app;
      const health = (key: string | undefined, remoteAddress = '127.0.0.1') =>
        app.inject({
          method: 'GET',
          url: '/v1/health',
          headers: key === undefined ? {} : { 'x-partner-api-key': key },
          remoteAddress,
        });

      // Far past the old 60-a-minute limit, one at a time as a client that stops on 401 would.
      const delays: number[] = [];
      for (let i = 0; i < 80; i += 1) {
        const answer = health(`sk_guess_${i}`);
        const first = await Promise.race([
          answer.then(() => 'answered' as const),
          timers.nextSet().then(() => 'waiting' as const),
        ]);
        if (first === 'waiting') {
          const timer = timers.pending.shift()!;
          delays.push(timer.ms);
          if (i === 10) {
            // While this wrong key waits: a right key, a missing key and another address answer at once.
            expect((await health(ACME)).statusCode).toBe(200);
            expect((await health(undefined)).statusCode).toBe(401);
            expect((await health('sk_guess_elsewhere', '10.0.0.9')).statusCode).toBe(401);
            expect(timers.pending).toEqual([]);
          }
          timer.fire();
        } else {
          delays.push(0);
        }
        const res = await answer;
        expect(res.statusCode).toBe(401);
        expect(res.json()).toMatchObject({ error: { code: 'invalid_api_key' } });
        expect(res.headers['retry-after']).toBeUndefined();
      }
      expect(delays.slice(0, 8)).toEqual([0, 0, 0, 1000, 2000, 4000, 8000, 8000]);
      expect(new Set(delays.slice(6))).toEqual(new Set([8000]));
      // The run is forgotten a minute after the last wrong key, on the service's clock.
      t.setNow(Date.parse('2025-01-01T00:01:01Z'));
      expect((await health('sk_guess_late')).statusCode).toBe(401);
      expect(timers.pending).toEqual([]);
    },
  );

  it('past maxTriesPerMinute an address gets 429 for any key, not looked at, until its oldest try is a minute old', async () => {
    t = await makeApp({
      authThrottle: { ...AUTH_THROTTLE_DEFAULTS, freeFailures: 100, maxTriesPerMinute: 5, setTimer: (fn) => fn() },
    });
    const app = t.app;
    const health = (key: string | undefined, remoteAddress = '127.0.0.1') =>
      app.inject({
        method: 'GET',
        url: '/v1/health',
        headers: key === undefined ? {} : { 'x-partner-api-key': key },
        remoteAddress,
      });
    const start = Date.parse('2025-01-01T00:00:00Z');
    for (let i = 0; i < 5; i += 1) {
      t.setNow(start + i * 10_000); // one wrong key every 10 s
      expect((await health(`sk_guess_${i}`)).statusCode).toBe(401);
    }
    t.setNow(start + 40_500);
    for (const key of ['sk_guess_5', ACME]) {
      const res = await health(key);
      expect(res.statusCode).toBe(429);
      expect(res.json()).toMatchObject({ error: { code: 'rate_limited', details: { per: 'address' } } });
      // The oldest try (at 0 s) leaves the minute at 60 s: 19.5 s from now, rounded up.
      expect(res.headers['retry-after']).toBe('20');
    }
    // A missing key tries nothing; another address, and a right key from it, are untouched.
    expect((await health(undefined)).statusCode).toBe(401);
    expect((await health(ACME, '10.0.0.9')).statusCode).toBe(200);
    expect((await health('sk_guess_elsewhere', '10.0.0.9')).statusCode).toBe(401);
    // A minute after the oldest try one more may be tried.
    t.setNow(start + 60_000);
    expect((await health(ACME)).statusCode).toBe(200);
    expect((await health('sk_guess_6')).statusCode).toBe(401);
    expect((await health('sk_guess_7')).statusCode).toBe(429);
  });

  it('a waiting wrong key holds no place in the API queue: right keys on API routes go ahead of it', async () => {
    const timers = manualTimers();
    t = await makeApp({
      authThrottle: { ...AUTH_THROTTLE_DEFAULTS, freeFailures: 0, setTimer: timers.setTimer },
      limits: { admission: { ...ADMISSION_DEFAULTS, maxInFlight: 1, startsPerTurn: 1 } },
    });
    const app = t.app;
    const create = (key: string, email: string) =>
      app.inject({ method: 'POST', url: '/v1/users', headers: { 'x-partner-api-key': key }, payload: { email } });
    const waiting = [create('sk_wrong_1', 'w1@example.com'), create('sk_wrong_2', 'w2@example.com')];
    await timers.nextSet();
    await timers.nextSet();
    // One request in flight at a time, two wrong keys waiting: a right key is still served.
    const right = await create(ACME, 'right@example.com');
    expect(right.statusCode).toBe(201);
    expect(timers.pending).toHaveLength(2);
    timers.fireAll();
    for (const res of await Promise.all(waiting)) expect(res.statusCode).toBe(401);
  });

  it('closing the service ends the waits: the waiting 401 goes out and close() does not hang', async () => {
    const timers = manualTimers();
    t = await makeApp({ authThrottle: { ...AUTH_THROTTLE_DEFAULTS, freeFailures: 0, setTimer: timers.setTimer } });
    const waiting = t.app.inject({ method: 'GET', url: '/v1/health', headers: { 'x-partner-api-key': 'sk_wrong' } });
    await timers.nextSet();
    const closing = t.close();
    t = null;
    expect((await waiting).statusCode).toBe(401);
    await closing;
  });
});
