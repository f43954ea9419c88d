import { ApiError, NetworkError } from '../errors.js';
import { PERMANENT_NETWORK_CODES, TIMEOUT_CODES } from './network-codes.js';
import { backoffDelay, REQUEST_RETRY, resolvePolicy, type RequestRetryPolicy } from '../util/backoff.js';

export { backoffDelay } from '../util/backoff.js';

/** The request-retry policy, and its defaults (`REQUEST_RETRY` of the one backoff helper). */
export type { RequestRetryPolicy } from '../util/backoff.js';
export const DEFAULT_RETRY_POLICY: Readonly<RequestRetryPolicy> = REQUEST_RETRY;

export type RetryDecision = { retry: false } | { retry: true; delayMs: number };

export interface RetryInput {
  /** Attempts already made (1 after the first failure). */
  attempt: number;
  error: unknown;
  policy: RequestRetryPolicy;
  /** Attempts of this call that timed out, this one included (default: every attempt did). */
  timeouts?: number;
  /** A number in [0, 1); Math.random in production, fixed in tests. */
  random: () => number;
}

/** Merges a partial policy over the defaults. */
export function resolveRetryPolicy(partial: Partial<RequestRetryPolicy> = {}): RequestRetryPolicy {
  return resolvePolicy(REQUEST_RETRY, partial);
}

/** Whether a network failure may heal on a later attempt (not a bad name or certificate). */
export function isTransientNetworkCode(code: string): boolean {
  return !PERMANENT_NETWORK_CODES.has(code);
}

/** Whether a network failure is a silence that lasted a whole timeout. */
export function isTimeoutCode(code: string): boolean {
  return TIMEOUT_CODES.has(code);
}

/**
 * Decides whether a failed attempt is tried again and after how long. Pure: the contract's
 * handling rules (429 after Retry-After, 5xx and network failures with backoff, other 4xx
 * never) with bounded attempts; a timeout is tried `maxTimeoutAttempts` times at most.
 */
export function decideRetry({ attempt, error, policy, random, timeouts }: RetryInput): RetryDecision {
  if (attempt >= policy.maxAttempts) return { retry: false };
  if (error instanceof ApiError) {
    if (error.status === 429) {
      if (error.retryAfterSeconds !== null) {
        const wait = Math.max(0, error.retryAfterSeconds * 1000);
        return { retry: true, delayMs: Math.min(wait, policy.maxRetryAfterMs) };
      }
      return { retry: true, delayMs: backoffDelay(attempt, policy, random) };
    }
    if (error.status >= 500 && error.status <= 599) {
      return { retry: true, delayMs: backoffDelay(attempt, policy, random) };
    }
    return { retry: false };
  }
  if (error instanceof NetworkError) {
    if (!isTransientNetworkCode(error.code)) return { retry: false };
    if (isTimeoutCode(error.code) && (timeouts ?? attempt) >= policy.maxTimeoutAttempts) return { retry: false };
    return { retry: true, delayMs: backoffDelay(attempt, policy, random) };
  }
  // Contract violations, interruptions and programming errors fail the same way again.
  return { retry: false };
}

/**
 * Reads a Retry-After header: delta-seconds, or an HTTP date relative to `now`.
 * Returns whole seconds, or null when absent or unreadable.
 */
export function parseRetryAfter(value: string | string[] | undefined, now: number = Date.now()): number | null {
  const raw = Array.isArray(value) ? value[0] : value;
  if (raw === undefined) return null;
  const text = raw.trim();
  if (/^\d+$/.test(text)) return Number(text);
  // Date.parse reads "-3" as a year: only something shaped like an HTTP date counts as one.
  if (!/^[A-Za-z]{3},/.test(text)) return null;
  const date = Date.parse(text);
  if (Number.isNaN(date)) return null;
  return Math.max(0, Math.ceil((date - now) / 1000));
}
