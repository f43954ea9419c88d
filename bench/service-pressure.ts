/**
 * `/ping` under load, for `npm run bench:service`: 200 connections (autocannon, in this
 * process, as a partner's worker pool would) keep the ingest route or the events page busy,
 * while a probe asks `/ping` 50 times a second on its own connection. Reports the probe's
 * p50/p99/max, its timeouts, and for the load: answers, 503s shed, timeouts, and whether
 * every shed answer carried the envelope and an integer Retry-After.
 */
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
export async function runPressure(
  origin: string,
  key: string,
  load: PressureLoad,
  seconds: number,
  served: { shedWithCode(): number },
): Promise<PressureResult> {
  const before = served.shedWithCode();
  const headers = { 'x-partner-api-key': key, 'content-type': 'application/json' };
  const requests = (load.bodies ?? [undefined]).map((body) => ({ method: load.method, path: load.path, headers, body }));
  // The load runs in a worker thread, so its client work does not share the service's event
  // loop; the probe runs here, beside the service, and measures what a client would see.
  const loadRun = autocannon({ url: origin, connections: PRESSURE_CONNECTIONS, duration: seconds, timeout: 10, requests, workers: 1 });
  const probe = autocannon({ url: `${origin}/v1/ping`, connections: 1, overallRate: 50, duration: seconds, timeout: 10 });
  const [l, p] = await Promise.all([loadRun, probe]);
  const codes = l.statusCodeStats as Record<string, { count: number } | undefined>;
  const shed = codes['503']?.count ?? 0;
  const ok = codes['200']?.count ?? 0;
  return {
    label: load.label,
    ping: { p50: p.latency.p50, p99: p.latency.p99, max: p.latency.max, requests: p.requests.total, timeouts: p.timeouts, errors: p.errors },
    load: {
      requests: l.requests.total,
      ok,
      shed,
      other: l.requests.total - ok - shed,
      timeouts: l.timeouts,
      errors: l.errors,
      p99: l.latency.p99,
      // Each 503 the service sent went through its error handler with the code (and the
      // envelope and Retry-After that handler always writes).
      shedWithEnvelope: served.shedWithCode() - before >= shed,
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
