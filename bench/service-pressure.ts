/**
 * `/ping` under load, for `npm run bench:service`: 200 connections (autocannon, in a worker
 * thread of this process, as a partner's worker pool would) keep the ingest route or the
 * events page busy, while a probe asks `/ping` one request at a time (every 20 ms) on its own
 * connection. Reports the probe's p50/p99/max and timeouts, the service's event-loop delay,
 * and for the load: answers, 503s shed, timeouts, and whether every shed answer carried the
 * envelope.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import autocannon from 'autocannon';
import { Pool } from 'undici';

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
  /** The event loop's delay while loaded (ms): what any request waits before it is read. */
  loopDelay: { p50: number; p99: number; max: number };
  load: {
    requests: number;
    ok: number;
    shed: number;
    other: number;
    timeouts: number;
    errors: number;
    p99: number;
    shedWithEnvelope: boolean;
  };
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
  const requests = (load.bodies ?? [undefined]).map((body) => ({
    method: load.method,
    path: load.path,
    headers,
    body,
  }));
  // The load runs in a worker thread, so its client work does not share the service's event
  // loop; the probe runs here, beside the service, and measures what a client would see.
  const loadRun = autocannon({
    url: origin,
    connections: PRESSURE_CONNECTIONS,
    duration: seconds,
    timeout: 10,
    requests,
    workers: 1,
  });
  const delay = monitorEventLoopDelay({ resolution: 5 });
  delay.enable();
  const [l, p] = await Promise.all([loadRun, probePing(origin, seconds)]);
  delay.disable();
  const codes = l.statusCodeStats as Record<string, { count: number } | undefined>;
  const shed = codes['503']?.count ?? 0;
  const ok = codes['200']?.count ?? 0;
  return {
    label: load.label,
    ping: p,
    loopDelay: { p50: delay.percentile(50) / 1e6, p99: delay.percentile(99) / 1e6, max: delay.max / 1e6 },
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
/** `/ping`, one request at a time for `seconds`, 20 ms apart; latencies in ms. */
async function probePing(origin: string, seconds: number): Promise<PressureResult['ping']> {
  const pool = new Pool(origin, { connections: 1 });
  const times: number[] = [];
  let timeouts = 0;
  let errors = 0;
  // The load's worker takes a moment to connect; the probe starts with it and runs as long.
  const end = performance.now() + seconds * 1000;
  while (performance.now() < end) {
    const started = performance.now();
    try {
      const res = await pool.request({ method: 'GET', path: '/v1/ping', headersTimeout: 10_000, bodyTimeout: 10_000 });
      await res.body.text();
      if (res.statusCode === 200) times.push(performance.now() - started);
      else errors += 1;
    } catch (error) {
      if ((error as { code?: string }).code === 'UND_ERR_HEADERS_TIMEOUT') timeouts += 1;
      else errors += 1;
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  await pool.close();
  times.sort((a, b) => a - b);
  const at = (q: number) => Math.round(times[Math.min(times.length - 1, Math.floor(q * times.length))] ?? Number.NaN);
  return {
    p50: at(0.5),
    p99: at(0.99),
    max: Math.round(times[times.length - 1] ?? Number.NaN),
    requests: times.length,
    timeouts,
    errors,
  };
}

/** One line per result. */
export function formatPressure(config: string, r: PressureResult): string {
  const { ping, load } = r;
  return (
    `${config}, ${r.label}: /ping p50 ${ping.p50} ms, p99 ${ping.p99} ms, max ${ping.max} ms over ${ping.requests} ` +
    `probes ` +
    `(${ping.timeouts} timeouts, ${ping.errors} errors); event-loop delay p50 ${r.loopDelay.p50.toFixed(1)} ms, p99 ` +
    `${r.loopDelay.p99.toFixed(1)} ms, max ${r.loopDelay.max.toFixed(0)} ms; load ${load.requests} requests at ` +
    `${PRESSURE_CONNECTIONS} connections: ` +
    `${load.ok} ok, ${load.shed} shed (503${load.shed > 0 ? (load.shedWithEnvelope ? ', all with the envelope and Retry-After' : ', SOME WITHOUT THE ENVELOPE') : ''}), ` +
    `${load.other} other, ${load.timeouts} timeouts, ${load.errors} errors, p99 ${load.p99} ms`
  );
}
