/**
 * `/ping` under load, for `npm run bench:service`: 200 connections (autocannon, in this
 * process, as a partner's worker pool would) keep the ingest route or the events page busy,
 * while a probe asks `/ping` 50 times a second on its own connection. Reports the probe's
 * p50/p99/max, its timeouts, and for the load: answers, 503s shed, timeouts, and whether
 * every shed answer carried the envelope and an integer Retry-After.
 */
import type { IncomingHttpHeaders } from 'node:http';
import autocannon from 'autocannon';

export const PRESSURE_CONNECTIONS = 200;

export interface PressureLoad {
  label: string;
  method: 'GET' | 'POST';
  path: string;
  /** Bodies to rotate through (POST). */
  bodies?: string[];
}

export interface PressureResult {
  label: string;
  ping: { p50: number; p99: number; max: number; requests: number; timeouts: number; errors: number };
  load: { requests: number; ok: number; shed: number; other: number; timeouts: number; errors: number; p99: number; shedWithEnvelope: boolean };
}

/** Runs one load for `seconds` with the probe alongside; the service must be listening at `origin`. */
export async function runPressure(origin: string, key: string, load: PressureLoad, seconds: number): Promise<PressureResult> {
  let shed = 0;
  let shedWithEnvelope = 0;
  let other = 0;
  const onResponse = (status: number, body: string, _context: object, headers?: IncomingHttpHeaders): void => {
    if (status === 503) {
      shed += 1;
      const retryAfter = headers?.['retry-after'];
      let code: unknown;
      try {
        code = (JSON.parse(body) as { error?: { code?: unknown } }).error?.code;
      } catch {
        code = undefined;
      }
      if (code === 'service_unavailable' && typeof retryAfter === 'string' && /^\d+$/.test(retryAfter)) shedWithEnvelope += 1;
    } else if (status !== 200) {
      other += 1;
    }
  };
  const headers = { 'x-partner-api-key': key, 'content-type': 'application/json' };
  const requests = (load.bodies ?? [undefined]).map((body) => ({ method: load.method, path: load.path, headers, body, onResponse }));

  const loadRun = autocannon({ url: origin, connections: PRESSURE_CONNECTIONS, duration: seconds, timeout: 10, requests });
  const probe = autocannon({ url: `${origin}/v1/ping`, connections: 1, overallRate: 50, duration: seconds, timeout: 10 });
  const [l, p] = await Promise.all([loadRun, probe]);
  return {
    label: load.label,
    ping: { p50: p.latency.p50, p99: p.latency.p99, max: p.latency.max, requests: p.requests.total, timeouts: p.timeouts, errors: p.errors },
    load: {
      requests: l.requests.total,
      ok: l['2xx'],
      shed,
      other,
      timeouts: l.timeouts,
      errors: l.errors,
      p99: l.latency.p99,
      shedWithEnvelope: shedWithEnvelope === shed,
    },
  };
}

/** One line per result. */
export function formatPressure(config: string, r: PressureResult): string {
  const { ping, load } = r;
  return (
    `${config}, ${r.label}: /ping p50 ${ping.p50} ms, p99 ${ping.p99} ms, max ${ping.max} ms over ${ping.requests} probes ` +
    `(${ping.timeouts} timeouts, ${ping.errors} errors); load ${load.requests} requests at ${PRESSURE_CONNECTIONS} connections: ` +
    `${load.ok} ok, ${load.shed} shed (503${load.shed > 0 ? (load.shedWithEnvelope ? ', all with the envelope and Retry-After' : ', SOME WITHOUT THE ENVELOPE') : ''}), ` +
    `${load.other} other, ${load.timeouts} timeouts, ${load.errors} errors, p99 ${load.p99} ms`
  );
}
