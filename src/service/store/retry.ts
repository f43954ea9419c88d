import { ServiceError } from '../service-error.js';
import { backoffDelay, LOCK_RETRY, resolvePolicy, type LockRetryPolicy } from '../../util/backoff.js';

/**
 * How long a store keeps retrying a locked database or a lost connection before answering
 * 503: the lock-retry policy (`LOCK_RETRY`) with any member overridden, and seams for tests.
 */
export interface StoreRetryOptions extends Partial<LockRetryPolicy> {
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
}

const defaultSleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** The 503 a store answers when its database stays busy past the retry budget. */
export function unavailable(retryAfterSeconds: number, cause: unknown): ServiceError {
  return new ServiceError('service_unavailable', 'the database is busy; retry shortly', {
    cause,
    headers: { 'retry-after': String(retryAfterSeconds) },
  });
}

/** A store's retry, resolved once when it opens: the policy with its overrides applied, the clock and the sleep. */
export interface StoreRetry {
  policy: LockRetryPolicy;
  now: () => number;
  sleep: (ms: number) => Promise<void>;
}

/** Resolves the options once, so the store's every read and write reuses the result. */
export function storeRetry(options: StoreRetryOptions = {}): StoreRetry {
  const { now, sleep, ...overrides } = options;
  return { policy: resolvePolicy(LOCK_RETRY, overrides), now: now ?? Date.now, sleep: sleep ?? defaultSleep };
}

/**
 * Runs `attempt`, and while it fails with a transient error (`isTransient`), runs it again
 * after the lock-retry backoff (`backoffDelay`), without ever blocking the event loop. Past
 * the budget the last failure becomes a 503 `service_unavailable` with Retry-After.
 */
export async function withRetry<T>(
  attempt: () => T | Promise<T>,
  isTransient: (error: unknown) => boolean,
  retry: StoreRetry,
): Promise<T> {
  const { policy, now, sleep } = retry;
  const deadline = now() + policy.budgetMs;
  for (let n = 0; ; n += 1) {
    try {
      return await attempt();
    } catch (error) {
      if (!isTransient(error)) throw error;
      const left = deadline - now();
      if (left <= 0) throw unavailable(policy.retryAfterSeconds, error);
      await sleep(Math.min(backoffDelay(n + 1, policy, Math.random), left));
    }
  }
}
