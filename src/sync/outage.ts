import { plural } from '../util/plural.js';
import { CONNECTION_CODES, PERMANENT_NETWORK_CODES, TIMEOUT_CODES } from '../client/network-codes.js';

/**
 * Tells a host that went away from a passing hiccup, request by request: after `limit`
 * consecutive connection-level failures (nothing answered) the sync stops sending, and a
 * failure that waiting cannot heal (a name that does not resolve, a refused certificate, a
 * refused key) stops it at once. A timeout (the host took the connection and said nothing for
 * a whole `--timeout`: a hung server, a dead proxy) is such a failure, and a request that met
 * it twice in a row stops the sync too: the client tries a timeout twice only, so without
 * this a silent host would cost 5 × `--timeout` one request after another before the stop.
 * Pure: fed the outcome of every attempt.
 */

/** The default number of consecutive connection failures that ends a sync. */
export const DEFAULT_MAX_CONNECTION_FAILURES = 5;

export type OutageVerdict = { stop: false } | { stop: true; reason: string };

/** One attempt's outcome: the HTTP status (null when nothing answered) and the error code. */
export interface AttemptOutcome {
  status: number | null;
  code: string | null;
  /** 1 for a request's first try (the client's traces carry it). */
  attempt?: number;
  /** How long the attempt waited: for a timeout, the timeout. */
  durationMs?: number;
  method?: string;
  url?: string;
}

export interface OutageTracker {
  observe(attempt: AttemptOutcome): OutageVerdict;
}

export function createOutageTracker(limit: number = DEFAULT_MAX_CONNECTION_FAILURES): OutageTracker {
  let consecutive = 0;
  return {
    observe({ status, code, attempt, durationMs, method, url }) {
      if (status === 401) return { stop: true, reason: 'the service refused the key (401 invalid_api_key)' };
      if (status !== null) {
        consecutive = 0;
        return { stop: false };
      }
      if (code !== null && PERMANENT_NETWORK_CODES.has(code))
        return { stop: true, reason: `${code}: waiting cannot heal it` };
      if (code === null || !CONNECTION_CODES.has(code)) return { stop: false };
      consecutive += 1;
      const timedOut = TIMEOUT_CODES.has(code);
      const silentTwice = timedOut && (attempt ?? 1) >= 2 && consecutive >= 2;
      if (consecutive < limit && !silentTwice) return { stop: false };
      if (!timedOut)
        return {
          stop: true,
          reason: `the host stopped answering: ${consecutive} connection failures in a row (last: ${code})`,
        };
      const within = durationMs === undefined ? 'in time' : `within ${Math.floor(durationMs / 1000)} s`;
      const last = method !== undefined && url !== undefined ? `${method} ${url}, ${code}` : code;
      return {
        stop: true,
        reason:
          `the host stopped answering: no answer ${within}, ${plural(consecutive, 'time')} in a row (last: ${last}); ` +
          'a hung server or proxy? if it is only slow, raise --timeout',
      };
    },
  };
}
