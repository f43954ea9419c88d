import { CONNECTION_CODES, PERMANENT_NETWORK_CODES } from '../client/network-codes.js';

/**
 * Tells a host that went away from a passing hiccup, request by request: after `limit`
 * consecutive connection-level failures (nothing answered) the sync stops sending, and a
 * failure that waiting cannot heal (a name that does not resolve, a refused certificate, a
 * refused key) stops it at once. Pure: fed the outcome of every attempt.
 */

/** The default number of consecutive connection failures that ends a sync. */
export const DEFAULT_MAX_CONNECTION_FAILURES = 5;

export type OutageVerdict = { stop: false } | { stop: true; reason: string };

/** One attempt's outcome: the HTTP status (null when nothing answered) and the error code. */
export interface AttemptOutcome {
  status: number | null;
  code: string | null;
}

export interface OutageTracker {
  observe(attempt: AttemptOutcome): OutageVerdict;
}

export function createOutageTracker(limit: number = DEFAULT_MAX_CONNECTION_FAILURES): OutageTracker {
  let consecutive = 0;
  return {
    observe({ status, code }) {
      if (status === 401) return { stop: true, reason: 'the service refused the key (401 invalid_api_key)' };
      if (status !== null) {
        consecutive = 0;
        return { stop: false };
      }
      if (code !== null && PERMANENT_NETWORK_CODES.has(code)) return { stop: true, reason: `${code}: waiting cannot heal it` };
      if (code === null || !CONNECTION_CODES.has(code)) return { stop: false };
      consecutive += 1;
      if (consecutive < limit) return { stop: false };
      return { stop: true, reason: `the host stopped answering: ${consecutive} connection failures in a row (last: ${code})` };
    },
  };
}
