/**
 * `npm run bench:service`: figures for the embedded service on loopback.
 * 1. ingest items/s (200-item batches, ~3% matched, 4 concurrent clients) and its ratio to
 *    a bare `node:http` route (the issue's baseline) and a bare Fastify route, each parsing
 *    the same bodies and answering a same-sized reply, in interleaved rounds (BENCH_ROUNDS,
 *    default 3), best of each; also CPU ms per batch. The same service with a store whose
 *    ingest keeps nothing is measured in the same rounds: what the service costs before
 *    anything is persisted, so the ratio's share that is the database's can be read off;
 * 2. p50/p99 of an events page (limit 20, media included) for a user with 1,000 events and
 *    30,000 matched media;
 * 3. `/ping` p50/p99 while 200 connections load the ingest route, then the events page
 *    (bench/service-pressure.ts), with the service's load limits and, as the baseline in the
 *    same run, without them (BENCH_PRESSURE_SECONDS per load, default 6);
 * 4. matcher lookups/s and catalog load time (bench/matcher.ts, from the catalog side).
 * The service is started as `serve` starts it and driven over HTTP only.
 * Prints figures, asserts nothing.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import Fastify from 'fastify';
import { Pool, request } from 'undici';
import { isVisibleEvent, loadCatalog, type Catalog } from '../src/service/catalog/index.js';
import type { LoadLimits } from '../src/service/load-limits.js';
import { createApp, type ServedRequest } from '../src/service/app.js';
import { localKeyEntry } from '../src/service/keys.js';
import { defaultIngestThreads, startService, type RunningService } from '../src/service/server.js';
import { openStore, type Store } from '../src/service/store/store.js';
import { runMatcherBench } from './matcher.js';
import { formatPressure, runPressure } from './service-pressure.js';
import { seededRandom as rng } from '../src/util/seeded-random.js';

const KEY = 'sk_bench_key';
const CLIENTS = 4;
const BATCH = 200;
const BATCHES = 400; // 80,000 items per round
/** Interleaved ingest rounds (service, then ceiling); the best of each is reported. */
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
/** Which parts run (BENCH_PARTS=ingest,events,pressure,matcher; default all). */
const PARTS = new Set((process.env.BENCH_PARTS ?? 'ingest,events,pressure,matcher').split(','));
/**
 * Ingest threads, as `serve` picks them on this machine (BENCH_INGEST_THREADS overrides); the ingest part also measures
 * the other setting (0 or 1).
 */
const INGEST_THREADS =
  process.env.BENCH_INGEST_THREADS === undefined ? defaultIngestThreads() : Number(process.env.BENCH_INGEST_THREADS);
if (!Number.isInteger(INGEST_THREADS) || INGEST_THREADS < 0)
  throw new Error(`BENCH_INGEST_THREADS takes a whole number >= 0, got ${process.env.BENCH_INGEST_THREADS}`);
/** Seconds of each pressure load. */
const PRESSURE_SECONDS = Number(process.env.BENCH_PRESSURE_SECONDS ?? 6);

/** The service as `serve` runs it, on a file database in `dir`, with the bench key. */
function start(
  dir: string,
  limits?: Partial<LoadLimits>,
  onResponse?: (served: ServedRequest) => void,
  ingestThreads = INGEST_THREADS,
): Promise<RunningService> {
  return startService({
    host: '127.0.0.1',
    port: 0,
    dbPath: join(dir, 'service.db'),
    dataDir: dir,
    env: { CAMROLL_API_KEY: KEY },
    limits,
    onResponse,
    ingestThreads,
  });
}

/** The same store, except that ingest keeps nothing (no match is written or read back). */
function keepingNothing(store: Store): Store {
  return { ...store, applyIngest: async (_userId, write) => ({ lastSyncAtMs: write.nowMs, media: new Map() }) };
}

/**
 * The service as `serve` builds it, on a store whose ingest keeps nothing: the most ingest could do with a free
 * database.
 */
async function startKeepingNothing(dir: string, catalog: Catalog, ingestThreads: number): Promise<RunningService> {
  const store = openStore({ path: join(dir, 'service.db') });
  let app: Awaited<ReturnType<typeof createApp>> | undefined;
  try {
    app = await createApp({ store: keepingNothing(store), catalog, keys: [localKeyEntry(KEY)], ingestThreads });
    await app.listen({ host: '127.0.0.1', port: 0 });
  } catch (error) {
    await app?.close();
    await store.close();
    throw error;
  }
  const listening = app;
  const { port } = listening.server.address() as { port: number };
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    localKey: KEY,
    localKeySource: null,
    close: async () => {
      await listening.close();
      await store.close();
    },
  };
}

async function post(url: string, body: unknown): Promise<any> {
  const res = await request(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-partner-api-key': KEY },
    body: JSON.stringify(body),
  });
  const json = await res.body.json();
  if (res.statusCode >= 300) throw new Error(`status ${res.statusCode}: ${JSON.stringify(json).slice(0, 200)}`);
  return json;
}

function visibleEvents(catalog: Catalog) {
  return [...catalog.events.values()].filter(isVisibleEvent);
}

/** Request bodies: ~3% of items inside a visible event's window at its venue, the rest nowhere. */
function makeBatches(catalog: Catalog, count: number, prefix: string): string[] {
  const rand = rng(7);
  const events = visibleEvents(catalog);
  const bodies: string[] = [];
  for (let b = 0; b < count; b += 1) {
    const media = [];
    for (let i = 0; i < BATCH; i += 1) {
      const id = `sha256:${prefix}${b.toString(16).padStart(6, '0')}${i.toString(16).padStart(4, '0')}${'0'.repeat(48)}`;
      if (rand() < 0.03) {
        const event = events[Math.floor(rand() * events.length)]!;
        const venue = catalog.venues.get(event.venue_id)!;
        media.push({
          id,
          taken_at: new Date(event.startsAtMs + Math.floor(rand() * 120) * 60_000).toISOString(),
          latitude: venue.latitude,
          longitude: venue.longitude,
          media_type: 'photo',
          filename: `IMG_${i}.JPG`,
          duration_seconds: null,
          device_make: 'Apple',
          device_model: 'iPhone 15',
          device_lens_model: null,
        });
      } else {
        media.push({
          id,
          taken_at: new Date(Date.UTC(2018, 0, 1) + Math.floor(rand() * 2e11)).toISOString(),
          latitude: -60 + rand() * 10,
          longitude: -170 + rand() * 10,
          media_type: 'photo',
          filename: `IMG_${i}.JPG`,
          duration_seconds: null,
          device_make: 'Apple',
          device_model: 'iPhone 15',
          device_lens_model: null,
        });
      }
    }
    bodies.push(JSON.stringify({ media }));
  }
  return bodies;
}

/**
 * Sends every body from CLIENTS concurrent clients; returns items/s, CPU ms per batch (this process: server and
 * clients) and the reply sizes.
 */
async function drive(
  origin: string,
  path: string,
  bodies: string[],
): Promise<{ itemsPerSecond: number; cpuMsPerBatch: number; replyBytes: number[] }> {
  const pool = new Pool(origin, { connections: CLIENTS, pipelining: 1 });
  const replyBytes: number[] = new Array(bodies.length);
  let next = 0;
  const cpu0 = process.cpuUsage();
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CLIENTS }, async () => {
      for (;;) {
        const index = next++;
        if (index >= bodies.length) return;
        const res = await pool.request({
          method: 'POST',
          path,
          headers: { 'content-type': 'application/json', 'x-partner-api-key': KEY },
          body: bodies[index],
        });
        const text = await res.body.text();
        if (res.statusCode !== 200) throw new Error(`status ${res.statusCode}: ${text.slice(0, 200)}`);
        replyBytes[index] = Buffer.byteLength(text);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  const cpu = process.cpuUsage(cpu0);
  await pool.close();
  return {
    itemsPerSecond: (bodies.length * BATCH) / seconds,
    cpuMsPerBatch: (cpu.user + cpu.system) / 1000 / bodies.length,
    replyBytes,
  };
}

async function listen(app: {
  listen(o: { host: string; port: number }): Promise<string>;
  server: { address(): unknown };
}): Promise<string> {
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address() as { port: number };
  return `http://127.0.0.1:${address.port}`;
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'camroll-bench-'));
  try {
    console.log(
      `machine: ${cpus()[0]?.model ?? 'unknown'} x${cpus().length}, Node ${process.version}, ${process.platform}, load average ${loadavg()
        .map((n) => n.toFixed(2))
        .join(' ')}`,
    );
    const catalog = await loadCatalog();

    // --- 1. ingest vs the bare route ceiling --------------------------------------------
    let svc = await start(dir);
    const origin = new URL(svc.baseUrl).origin;
    const user = (await post(`${svc.baseUrl}/users`, { email: 'bench@example.com' })).user_id as string;
    const warm = makeBatches(catalog, 40, 'ff');
    await drive(origin, `/v1/users/${user}/media`, warm);
    if (PARTS.has('ingest')) {
      // The same service with the other ingest-thread setting, on its own database: both are
      // measured in the same rounds, since a thread pays off only when a core is free for it.
      const otherThreads = INGEST_THREADS > 0 ? 0 : 1;
      const otherDir = mkdtempSync(join(tmpdir(), 'camroll-bench-'));
      const other = await start(otherDir, undefined, undefined, otherThreads);
      // The service without persistence, with each thread setting, also on their own databases.
      const bare = await Promise.all(
        [INGEST_THREADS, otherThreads].map(async (threads) => {
          const bareDir = mkdtempSync(join(tmpdir(), 'camroll-bench-'));
          return { threads, dir: bareDir, running: await startKeepingNothing(bareDir, catalog, threads) };
        }),
      );
      const services: Array<{ label: string; origin: string; path: string; ceiling?: true }> = [
        { label: `${INGEST_THREADS} ingest thread(s), as serve runs here`, origin, path: `/v1/users/${user}/media` },
      ];
      const others = [
        { label: `${otherThreads} ingest thread(s)`, running: other },
        ...bare.map((b) => ({
          label: `${b.threads} ingest thread(s), ceiling: a store that keeps nothing (answers carry no media)`,
          running: b.running,
          ceiling: true as const,
        })),
      ];
      for (const { running, ...described } of others) {
        const userId = (await post(`${running.baseUrl}/users`, { email: 'bench@example.com' })).user_id as string;
        const entry = { ...described, origin: new URL(running.baseUrl).origin, path: `/v1/users/${userId}/media` };
        await drive(entry.origin, entry.path, warm);
        services.push(entry);
      }
      // New asset ids every round, so each round ingests what a first sync would.
      const rounds = Array.from({ length: ROUNDS }, (_, r) => makeBatches(catalog, BATCHES, `a${r}`));
      const first = await drive(origin, services[0]!.path, rounds[0]!);

      const replies = first.replyBytes.map((n) => JSON.stringify({ pad: 'x'.repeat(Math.max(0, n - 10)) }));
      let served = 0;
      /** Touches the parsed body as the service does (every item), then a same-sized reply. */
      const replyTo = (body: unknown): string => {
        const media = (body as { media: Array<{ id: string }> }).media;
        let n = 0;
        for (const item of media) n += item.id.length;
        return n >= 0 ? replies[served++ % replies.length]! : '';
      };
      const fastify = Fastify({ logger: false, bodyLimit: 8 * 1024 * 1024 });
      fastify.post('/ingest', async (request) => replyTo(request.body));
      // The issue's baseline: node:http alone, reading the body, JSON.parse, the same reply.
      const plain: Server = createServer((request, response) => {
        const chunks: Buffer[] = [];
        request.on('data', (chunk: Buffer) => chunks.push(chunk));
        request.on('end', () => {
          const reply = replyTo(JSON.parse(Buffer.concat(chunks).toString('utf8')));
          response.writeHead(200, {
            'content-type': 'application/json; charset=utf-8',
            'content-length': Buffer.byteLength(reply),
          });
          response.end(reply);
        });
      });
      await new Promise<void>((resolve) => plain.listen(0, '127.0.0.1', resolve));
      const ceilings = {
        'node:http': `http://127.0.0.1:${(plain.address() as { port: number }).port}`,
        Fastify: await listen(fastify),
      };
      for (const ceilingOrigin of Object.values(ceilings)) await drive(ceilingOrigin, '/ingest', warm);
      // Rounds interleave the services and the ceilings, and the best of each counts: on a
      // shared machine one unlucky stretch would otherwise decide the ratio.
      type Run = { itemsPerSecond: number; cpuMsPerBatch: number };
      const measured: Run[][] = services.map((_, index) => (index === 0 ? [first] : []));
      const ceiling: Record<keyof typeof ceilings, Run[]> = { 'node:http': [], Fastify: [] };
      for (let r = 0; r < ROUNDS; r += 1) {
        for (const [index, service] of services.entries()) {
          if (index > 0 || r > 0) measured[index]!.push(await drive(service.origin, service.path, rounds[r]!));
        }
        for (const [name, ceilingOrigin] of Object.entries(ceilings) as Array<[keyof typeof ceilings, string]>) {
          served = 0;
          ceiling[name].push(await drive(ceilingOrigin, '/ingest', rounds[r]!));
        }
      }
      await fastify.close();
      await new Promise((resolve) => plain.close(resolve));
      await other.close();
      rmSync(otherDir, { recursive: true, force: true });
      for (const b of bare) {
        await b.running.close();
        rmSync(b.dir, { recursive: true, force: true });
      }
      const best = (runs: Run[]): Run => ({
        itemsPerSecond: Math.max(...runs.map((run) => run.itemsPerSecond)),
        cpuMsPerBatch: Math.min(...runs.map((run) => run.cpuMsPerBatch)),
      });
      const bestCeilings = Object.entries(ceiling).map(([name, runs]) => [name, best(runs)] as const);
      for (const [name, c] of bestCeilings) {
        console.log(
          `ceiling, bare ${name} route (same bodies, same-sized replies): ${c.itemsPerSecond.toFixed(0)} items/s, ` +
            `${c.cpuMsPerBatch.toFixed(2)} ms CPU per batch`,
        );
      }
      for (const [index, service] of services.entries()) {
        const s = best(measured[index]!);
        console.log(
          `ingest, ${service.label}: ${s.itemsPerSecond.toFixed(0)} items/s, ${s.cpuMsPerBatch.toFixed(2)} ms CPU ` +
            `per batch (${CLIENTS} clients, ${BATCH}-item batches, ~3% matched; best of ${ROUNDS} rounds)`,
        );
        for (const [name, c] of bestCeilings) {
          console.log(
            `  ratio to bare ${name}: ${(s.itemsPerSecond / c.itemsPerSecond).toFixed(2)} by throughput, ${(c.cpuMsPerBatch / s.cpuMsPerBatch).toFixed(2)} by CPU per batch${service.ceiling ? '' : ' (target >= 0.5)'}`,
          );
        }
      }
    }

    // --- 2. events page for a user with 1,000 events and 30,000 media -------------------
    const rich = (await post(`${svc.baseUrl}/users`, { email: 'rich@example.com' })).user_id as string;
    const chosen = visibleEvents(catalog).slice(0, 1000);
    const items = chosen.flatMap((event, e) => {
      const venue = catalog.venues.get(event.venue_id)!;
      return Array.from({ length: 30 }, (_, k) => ({
        id: `rich-${e}-${k}`,
        taken_at: new Date(event.startsAtMs + k * 60_000).toISOString(),
        latitude: venue.latitude,
        longitude: venue.longitude,
        thumbnail_url: `https://cdn.example.com/t/${e}/${k}.jpg`,
      }));
    });
    for (let i = 0; i < items.length; i += BATCH)
      await post(`${svc.baseUrl}/users/${rich}/media`, { media: items.slice(i, i + BATCH) });
    if (PARTS.has('events')) {
      const pool = new Pool(origin, { connections: 1 });
      const timings: number[] = [];
      let total = 0;
      let pageCpu = process.cpuUsage();
      for (let pass = 0; pass < 12; pass += 1) {
        if (pass === 1) pageCpu = process.cpuUsage(); // first pass warms up
        let cursor: string | null = null;
        do {
          const path: string = `/v1/users/${rich}/events?limit=20${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
          const started = performance.now();
          const res = await pool.request({ method: 'GET', path, headers: { 'x-partner-api-key': KEY } });
          const page = (await res.body.json()) as { next_cursor: string | null; total: number };
          timings.push(performance.now() - started);
          cursor = page.next_cursor;
          total = page.total;
        } while (cursor);
      }
      const pageCpuUsed = process.cpuUsage(pageCpu);
      await pool.close();
      const measured = timings.slice(50).sort((a, b) => a - b); // first pass warms up
      const cpuPerPage = (pageCpuUsed.user + pageCpuUsed.system) / 1000 / measured.length;
      console.log(
        `events page (limit 20, media included; ${total} events, ${items.length} media): p50 ` +
          `${percentile(measured, 50).toFixed(2)} ms, p99 ${percentile(measured, 99).toFixed(2)} ms over ` +
          `${measured.length} pages, ${cpuPerPage.toFixed(2)} ms CPU per page with its client (target p99 <= 10 ms)`,
      );
    }
    await svc.close();

    // --- 3. /ping under 200 connections of ingest, then of events pages ----------------
    // With the limits `serve` uses, then without them (the baseline), on the same database.
    const loads = [
      { label: 'ingest load', method: 'POST' as const, path: `/v1/users/${user}/media`, bodies: warm },
      { label: 'events-page load', method: 'GET' as const, path: `/v1/users/${rich}/events?limit=20` },
    ];
    if (PARTS.has('pressure')) {
      for (const [config, limits] of [
        ['with load limits', undefined],
        ['baseline, no queue or shedding', { admission: false }],
      ] as const) {
        let shedWithCode = 0;
        svc = await start(dir, limits, (r) => {
          if (r.status === 503 && r.code === 'service_unavailable') shedWithCode += 1;
        });
        const pressureOrigin = new URL(svc.baseUrl).origin;
        for (const load of loads) {
          const result = await runPressure(pressureOrigin, KEY, load, PRESSURE_SECONDS, {
            shedWithCode: () => shedWithCode,
          });
          console.log(formatPressure(config, result));
        }
        await svc.close();
      }
    }

    // --- 4. matcher, from the catalog side's benchmark ----------------------------------
    if (PARTS.has('matcher')) {
      const m = runMatcherBench({ log: (line) => console.log(`  matcher bench: ${line}`) });
      console.log(
        `matcher: ${Math.round(m.lookupsPerSecond).toLocaleString('en-US')} lookups/s (target >= 1,000,000); catalog load ${(m.loadMs / 1000).toFixed(2)} s wall, ${(m.loadCpuMs / 1000).toFixed(2)} s CPU (target <= 3 s) [${m.venues} venues, ${m.events} events]`,
      );
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
