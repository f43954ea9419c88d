import { ServiceError } from '../service-error.js';

/** How long a store keeps retrying a locked database or a lost connection before answering 503. */
export interface RetryPolicy {
  /** Total time spent retrying before giving up (default 2 s). */
  budgetMs?: number;
  /** First pause; doubles per attempt up to `capMs`, with jitter (default 5 ms, cap 250 ms). */
  floorMs?: number;
  capMs?: number;
  /** Seconds for the 503's Retry-After (default 1). */
  retryAfterSeconds?: number;
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

/**
 * Runs `attempt`, and while it fails with a transient error (`isTransient`), runs it again
 * after an exponential pause with jitter, without ever blocking the event loop. Past the
 * budget the last failure becomes a 503 `service_unavailable` with Retry-After.
 */
export async function withRetry<T>(
  attempt: () => T | Promise<T>,
  isTransient: (error: unknown) => boolean,
  policy: RetryPolicy = {},
): Promise<T> {
  const budgetMs = policy.budgetMs ?? 2000; // 2 s
  const floorMs = policy.floorMs ?? 5;
  const capMs = policy.capMs ?? 250;
  const now = policy.now ?? Date.now;
  const sleep = policy.sleep ?? defaultSleep;
  const deadline = now() + budgetMs;
  for (let n = 0; ; n += 1) {
    try {
      return await attempt();
    } catch (error) {
      if (!isTransient(error)) throw error;
      const left = deadline - now();
      if (left <= 0) throw unavailable(policy.retryAfterSeconds ?? 1, error);
      const pause = Math.min(capMs, floorMs * 2 ** n) * (0.5 + Math.random() / 2);
      await sleep(Math.min(pause, left));
    }
  }
}
