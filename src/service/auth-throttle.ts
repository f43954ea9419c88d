import { backoffCeiling } from '../util/backoff.js';

export interface AuthThrottleOptions {
  /** Wrong keys in a row from one address answered at once; later ones wait. */
  freeFailures: number;
  /** The first wait, doubled with each further wrong key up to maxDelayMs. */
  baseDelayMs: number;
  maxDelayMs: number;
  /** An address's run of wrong keys is forgotten after this long without one. */
  forgetAfterSeconds: number;
  /** Addresses tracked at once; the one whose last wrong key is oldest is forgotten first. */
  maxAddresses?: number;
  /** Answers one address may have waiting at once; past it a wrong key is answered at once. */
  maxWaitingPerAddress?: number;
  /** Answers waiting at once over all addresses; past it a wrong key is answered at once. */
  maxWaiting?: number;
  /**
   * Wrong keys one address may try in any 60 s (default 30). Past it, a request from that
   * address that carries a key is refused without its key being looked at, whatever the
   * number of connections it uses.
   */
  maxTriesPerMinute?: number;
  /** Milliseconds (default Date.now). */
  clock?: () => number;
  /**
   * Runs `fn` after `ms` (default setTimeout); may return a function that cancels it (anything
   * else is ignored). Tests pass their own.
   */
  setTimer?: (fn: () => void, ms: number) => unknown;
}

/**
 * Defaults for `serve`: a person retyping a key or a script's few retries never wait; a loop
 * of guesses is held to about one answer per 4 s per connection after a few seconds.
 */
export const AUTH_THROTTLE_DEFAULTS: AuthThrottleOptions = {
  freeFailures: 10,
  baseDelayMs: 250,
  maxDelayMs: 4_000, // 4 s: far inside any client's timeout
  forgetAfterSeconds: 60,
};

export interface AuthThrottle {
  /**
   * Whether `address` has tried its `maxTriesPerMinute` wrong keys in the last 60 s: the
   * whole seconds until it may try one again, else null. Asked before a key is looked at.
   */
  spent(address: string | undefined): number | null;
  /**
   * Counts one wrong key from `address` (an IPv6 address counts with its /64). Returns null
   * when its 401 goes out at once, else a promise that resolves when it may (a timer: the
   * event loop is never held).
   */
  fail(address: string | undefined): Promise<void> | null;
  /**
   * Ends every wait now, and answers every later wrong key at once (the service is closing: a
   * request still arriving on an open connection must not hold close() for a wait).
   */
  releaseAll(): void;
}

/**
 * The key an address is tracked under: an IPv4 address as it is, an IPv6 address by its /64
 * (one host or network is usually given a whole /64, so counting each of its addresses apart
 * would let it step around the waits), an IPv4-mapped IPv6 address as its IPv4 address.
 */
export function addressKey(address: string | undefined): string {
  // Fastify's request.ip is the socket's remoteAddress, undefined once the client has gone.
  if (address === undefined) return 'gone';
  if (!address.includes(':')) return address;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return mapped[1] as string;
  const bare = address.replace(/%.*$/, ''); // a zone id (fe80::1%eth0) names no other host
  const [head = '', tail] = bare.split('::');
  const left = head === '' ? [] : head.split(':');
  const right = tail === undefined || tail === '' ? [] : tail.split(':');
  const zeros = Array<string>(Math.max(0, 8 - left.length - right.length)).fill('0');
  const groups = tail === undefined ? left : [...left, ...zeros, ...right];
  return `${groups
    .slice(0, 4)
    .map((g) => g.toLowerCase().replace(/^0+(?=.)/, ''))
    .join(':')}::/64`;
}

interface Entry {
  failures: number;
  lastMs: number;
  waiting: number;
  /** When the address's latest wrong keys came, oldest first, at most maxTriesPerMinute of them. */
  tries: number[];
}

const TRY_WINDOW_MS = 60 * 1000;

/**
 * Slows wrong keys down per client address while answering every one of them 401, as the
 * contract says: after `freeFailures` in a row, each 401 waits twice as long as the one
 * before, up to `maxDelayMs`. A 429 here would be retried for ever by a client that follows
 * the contract (429 means "retry after"), and a wrong key never gets right by waiting.
 * A valid key is never delayed or counted, from any address: many partners' servers can share
 * one NAT address, and one of them sending a stale key must not slow the others down. The
 * waits are bounded per address and in all, so they cannot take the server's connections
 * from other clients; past a bound the 401 goes out at once.
 */
export function createAuthThrottle(options: AuthThrottleOptions): AuthThrottle {
  const clock = options.clock ?? Date.now;
  const setTimer =
    options.setTimer ??
    ((fn: () => void, ms: number): (() => void) => {
      const timer = setTimeout(fn, ms);
      return () => clearTimeout(timer);
    });
  const forgetMs = options.forgetAfterSeconds * 1000;
  const maxAddresses = options.maxAddresses ?? 10_000;
  const maxWaitingPerAddress = options.maxWaitingPerAddress ?? 8;
  const maxWaiting = options.maxWaiting ?? 256;
  const maxTries = options.maxTriesPerMinute ?? 30;
  // Insertion order is last-failure order (each failure re-inserts), so the first is the oldest.
  const entries = new Map<string, Entry>();
  const waits = new Set<() => void>();
  let closing = false;

  const delayAfter = (failures: number): number => {
    const excess = failures - options.freeFailures;
    return excess <= 0 ? 0 : backoffCeiling(excess, options);
  };

  return {
    spent(client) {
      const tries = entries.get(addressKey(client))?.tries;
      if (tries === undefined || tries.length < maxTries) return null;
      const waitMs = (tries[0] as number) + TRY_WINDOW_MS - clock();
      return waitMs <= 0 ? null : Math.ceil(waitMs / 1000);
    },
    fail(client) {
      const address = addressKey(client);
      const now = clock();
      // The same object across a forgotten run: its waits still count down on it.
      const entry = entries.get(address) ?? { failures: 0, lastMs: now, waiting: 0, tries: [] };
      if (now - entry.lastMs >= forgetMs) entry.failures = 0;
      entry.failures += 1;
      entry.lastMs = now;
      entry.tries.push(now);
      if (entry.tries.length > maxTries) entry.tries.shift();
      entries.delete(address);
      entries.set(address, entry);
      if (entries.size > maxAddresses) {
        const oldest = entries.keys().next().value;
        if (oldest !== undefined) entries.delete(oldest);
      }
      const delay = delayAfter(entry.failures);
      if (closing || delay === 0 || entry.waiting >= maxWaitingPerAddress || waits.size >= maxWaiting) return null;
      entry.waiting += 1;
      return new Promise<void>((resolve) => {
        let done = false;
        let cancel: unknown;
        const release = (): void => {
          if (done) return;
          done = true;
          waits.delete(release);
          entry.waiting -= 1;
          // Released early (the service is closing): a pending timer would keep the process up to maxDelayMs longer.
          if (typeof cancel === 'function') cancel();
          resolve();
        };
        waits.add(release);
        cancel = setTimer(release, delay);
      });
    },
    releaseAll() {
      closing = true;
      for (const release of [...waits]) release();
    },
  };
}
