/**
 * The one backoff of camroll: exponential pauses with jitter, and its two named policies.
 * Pure: no clock and no timer, the callers sleep.
 */

/** How the pause before a retry grows. */
export interface Backoff {
  /** The first pause's ceiling; doubles with every failed attempt. */
  baseDelayMs: number;
  /** Smallest pause, so a jittered 0 never hammers what is retried. */
  minDelayMs: number;
  /** Largest ceiling. */
  maxDelayMs: number;
  /**
   * `full`: anywhere below the ceiling, so many clients retrying one service spread out;
   * `half`: between half the ceiling and the ceiling, so one process waiting for a lock
   * neither spins nor oversleeps.
   */
  jitter: 'full' | 'half';
}

/** A request to the service (the client): bounded attempts, 429 answers waited out. */
export interface RequestRetryPolicy extends Backoff {
  /** Attempts in total, the first one included. */
  maxAttempts: number;
  /** A Retry-After beyond this is clipped: a misconfigured limiter must not park a sync for hours. */
  maxRetryAfterMs: number;
  /**
   * Attempts that may end in a timeout: a host that took the connection and stayed silent for
   * a whole timeout twice is hung, and six more waits would only hide it.
   */
  maxTimeoutAttempts: number;
}

/** A store's locked database or lost connection (the service): retried within a time budget, then 503. */
export interface LockRetryPolicy extends Backoff {
  /** Total time spent retrying before giving up. */
  budgetMs: number;
  /** Seconds for the 503's Retry-After. */
  retryAfterSeconds: number;
}

/** Request retry: up to 6 attempts (2 that time out), 0.5 s doubling to 30 s, full jitter, Retry-After up to 5 min. */
export const REQUEST_RETRY: Readonly<RequestRetryPolicy> = Object.freeze({
  maxAttempts: 6,
  baseDelayMs: 500, // 0.5 s
  minDelayMs: 100, // 0.1 s
  maxDelayMs: 30 * 1000, // 30 s
  jitter: 'full',
  maxRetryAfterMs: 5 * 60 * 1000, // 5 min
  maxTimeoutAttempts: 2,
});

/** Lock retry: 5 ms doubling to 250 ms, half jitter, for 2 s, then a 503 with Retry-After 1. */
export const LOCK_RETRY: Readonly<LockRetryPolicy> = Object.freeze({
  budgetMs: 2000, // 2 s
  baseDelayMs: 5,
  minDelayMs: 0,
  maxDelayMs: 250,
  jitter: 'half',
  retryAfterSeconds: 1,
});

/** A policy with some members overridden; an override left undefined keeps the policy's value. */
export function resolvePolicy<P extends Backoff>(policy: Readonly<P>, overrides: Partial<P> = {}): P {
  const resolved = { ...policy } as P;
  for (const [name, value] of Object.entries(overrides) as [keyof P, P[keyof P] | undefined][]) {
    if (value !== undefined) resolved[name] = value;
  }
  return resolved;
}

/** The ceiling after failed attempt number `attempt` (1 after the first): `baseDelayMs * 2^(attempt-1)`, capped. */
export function backoffCeiling(attempt: number, backoff: Pick<Backoff, 'baseDelayMs' | 'maxDelayMs'>): number {
  // The exponent is capped before the power: 2^1100 is Infinity, and a base of 0 times Infinity is NaN.
  return Math.min(backoff.maxDelayMs, backoff.baseDelayMs * 2 ** Math.min(Math.max(0, attempt - 1), 30));
}

/**
 * The pause after failed attempt number `attempt` (1 after the first failure): the ceiling
 * `baseDelayMs * 2^(attempt-1)`, capped at `maxDelayMs`, jittered, never below `minDelayMs`.
 * `random` is in [0, 1): Math.random in production, fixed in tests.
 */
export function backoffDelay(attempt: number, backoff: Backoff, random: () => number): number {
  const ceiling = backoffCeiling(attempt, backoff);
  if (backoff.jitter === 'half') return Math.max(backoff.minDelayMs, ceiling * (0.5 + random() / 2));
  return Math.max(backoff.minDelayMs, Math.floor(random() * ceiling));
}
