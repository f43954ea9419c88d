/**
 * `npm run bench:store`: the two stores side by side, same machine, same run.
 * 1. ingest items/s through real `camroll serve` processes (dist/, built by `npm run build`):
 *    one on SQLite, one on PostgreSQL, two on one PostgreSQL database (requests spread over
 *    both), 200-item batches from CLIENTS concurrent clients, one user per client;
 * 2. the lock test: a second process holds SQLite's write lock (BEGIN IMMEDIATE); /ping
 *    latency while a write waits, and how long until that write gets its 503.
 * PostgreSQL comes from CAMROLL_TEST_DATABASE_URL (`.ci/postgres.sh start` prints one);
 * without it only the SQLite figures are printed. Prints figures, asserts nothing.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { Pool } from 'undici';
import { isVisibleEvent, loadCatalog, type Catalog } from '../src/service/catalog/index.js';
import { seededRandom as rng } from '../src/util/seeded-random.js';

const KEY = 'sk_bench_store_key';
const CLIENTS = 8;
const BATCH = 200;
const BATCHES = Number(process.env.BENCH_BATCHES ?? 240); // 48,000 items per setup
const MATCHED = 0.1; // a tenth of the items match: the store, not the matcher, does the work
const BIN = join(import.meta.dirname, '..', 'bin', 'camroll.js');
/** Extra `serve` flags for every instance, e.g. BENCH_SERVE_ARGS='--ingest-threads 0'. */
const SERVE_ARGS = (process.env.BENCH_SERVE_ARGS ?? '').split(' ').filter((word) => word !== '');

/** Request bodies: MATCHED of the items inside a visible event's window at its venue. */
function makeBatches(catalog: Catalog, count: number, prefix: string): string[] {
  const rand = rng(11);
  const events = [...catalog.events.values()].filter(isVisibleEvent);
  return Array.from({ length: count }, (_, b) => {
    const media = Array.from({ length: BATCH }, (_, i) => {
      const id = `sha256:${prefix}${b.toString(16).padStart(6, '0')}${i.toString(16).padStart(4, '0')}`;
      if (rand() < MATCHED) {
        const event = events[Math.floor(rand() * events.length)]!;
        const venue = catalog.venues.get(event.venue_id)!;
        return {
          id,
          taken_at: new Date(event.startsAtMs + Math.floor(rand() * 120) * 60_000).toISOString(),
          latitude: venue.latitude,
          longitude: venue.longitude,
        };
      }
      return {
        id,
        taken_at: new Date(Date.UTC(2018, 0, 1) + Math.floor(rand() * 2e11)).toISOString(),
        latitude: -60 + rand() * 10,
        longitude: -170 + rand() * 10,
      };
    });
    return JSON.stringify({ media });
  });
}

interface Serve {
  origin: string;
  child: ChildProcess;
}

/** Starts `camroll serve` with these store flags and waits for its listening line. */
function serve(storeArgs: string[], home: string): Promise<Serve> {
  const env = {
    PATH: process.env.PATH,
    HOME: home,
    XDG_DATA_HOME: home,
    XDG_CONFIG_HOME: home,
    XDG_CACHE_HOME: home,
    CAMROLL_API_KEY: KEY,
  };
  const child = spawn(
    process.execPath,
    [BIN, 'serve', '--host', '127.0.0.1', '--port', '0', ...storeArgs, ...SERVE_ARGS],
    { env, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  return new Promise((resolve, reject) => {
    let out = '';
    let err = '';
    child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /listening on (http:\/\/[^/\s]+)/.exec(out);
      if (m) resolve({ origin: m[1]!, child });
    });
    child.once('exit', (code) => reject(new Error(`serve exited ${code}: ${out}${err}`)));
  });
}

async function stop(s: Serve): Promise<void> {
  if (s.child.exitCode !== null) return;
  await new Promise<void>((resolve) => {
    s.child.once('exit', () => resolve());
    s.child.kill('SIGTERM');
  });
}

async function post(pool: Pool, path: string, body: string): Promise<{ status: number; text: string }> {
  const res = await pool.request({
    method: 'POST',
    path,
    headers: { 'content-type': 'application/json', 'x-partner-api-key': KEY },
    body,
  });
  return { status: res.statusCode, text: await res.body.text() };
}

/** Ingest items/s over these instances: client k uses instance k mod n and its own user. */
async function ingest(instances: Serve[], bodies: string[]): Promise<number> {
  const pools = instances.map((s) => new Pool(s.origin, { connections: CLIENTS, pipelining: 1 }));
  const users: string[] = [];
  for (let k = 0; k < CLIENTS; k += 1) {
    const reply = await post(
      pools[k % pools.length]!,
      '/v1/users',
      JSON.stringify({ email: `bench-${k}@example.com` }),
    );
    users.push((JSON.parse(reply.text) as { user_id: string }).user_id);
  }
  let next = 0;
  const started = performance.now();
  await Promise.all(
    users.map(async (userId, k) => {
      const pool = pools[k % pools.length]!;
      for (;;) {
        const index = next++;
        if (index >= bodies.length) return;
        const reply = await post(pool, `/v1/users/${userId}/media`, bodies[index]!);
        if (reply.status !== 200) throw new Error(`status ${reply.status}: ${reply.text.slice(0, 200)}`);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  await Promise.all(pools.map((p) => p.close()));
  return (bodies.length * BATCH) / seconds;
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
}

/** /ping latencies while a write waits on a lock held by this process, and the write's time to its answer. */
async function lockTest(home: string, catalog: Catalog): Promise<string> {
  const file = join(home, 'locked.db');
  const s = await serve(['--db', file], home);
  try {
    const pool = new Pool(s.origin, { connections: 4 });
    const user = JSON.parse((await post(pool, '/v1/users', JSON.stringify({ email: 'lock@example.com' }))).text)
      .user_id as string;
    const body = makeBatches(catalog, 1, 'lock')[0]!;
    const holder = new Database(file);
    holder.exec('BEGIN IMMEDIATE');
    const started = performance.now();
    let writeMs = 0;
    let writeStatus = 0;
    let retryAfter = '';
    const write = pool
      .request({
        method: 'POST',
        path: `/v1/users/${user}/media`,
        headers: { 'content-type': 'application/json', 'x-partner-api-key': KEY },
        body,
      })
      .then(async (res) => {
        writeMs = performance.now() - started;
        writeStatus = res.statusCode;
        retryAfter = String(res.headers['retry-after'] ?? '');
        await res.body.text();
      });
    const pings: number[] = [];
    while (writeStatus === 0 && pings.length < 2000) {
      const t0 = performance.now();
      const res = await pool.request({ method: 'GET', path: '/v1/ping' });
      await res.body.text();
      pings.push(performance.now() - t0);
    }
    await write;
    holder.exec('ROLLBACK');
    holder.close();
    await pool.close();
    pings.sort((a, b) => a - b);
    return (
      `lock test (a second process holds BEGIN IMMEDIATE): /ping p50 ${percentile(pings, 50).toFixed(2)} ms, ` +
      `p99 ${percentile(pings, 99).toFixed(2)} ms over ${pings.length} pings while a write waited; the write got ` +
      `${writeStatus} (Retry-After: ${retryAfter}) after ${writeMs.toFixed(0)} ms`
    );
  } finally {
    await stop(s);
  }
}

async function main(): Promise<void> {
  const catalog = await loadCatalog();
  const home = mkdtempSync(join(tmpdir(), 'camroll-bench-store-'));
  const pgUrl = process.env.CAMROLL_TEST_DATABASE_URL;
  const withSchema = (schema: string): string => {
    const url = new URL(pgUrl!);
    url.searchParams.set('schema', schema);
    return url.toString();
  };
  console.log(
    `machine: ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, load ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );
  console.log(
    `${BATCHES} batches of ${BATCH} items (${MATCHED * 100}% matched), ${CLIENTS} clients, one user each; real serve ` +
      `processes`,
  );
  const figures: { name: string; ips: number }[] = [];
  try {
    const run = async (name: string, storeArgs: string[][], prefix: string): Promise<void> => {
      const instances = await Promise.all(storeArgs.map((args) => serve(args, home)));
      try {
        const ips = await ingest(instances, makeBatches(catalog, BATCHES, prefix));
        figures.push({ name, ips });
        const base = figures[0]!.ips;
        console.log(
          `${name}: ${Math.round(ips).toLocaleString('en-US')} items/s (${(ips / base).toFixed(2)} × SQLite)`,
        );
      } finally {
        await Promise.all(instances.map(stop));
      }
    };
    await run('SQLite, 1 instance', [['--db', join(home, 'bench.db')]], 'a');
    if (pgUrl) {
      const one = withSchema(`bench_${randomUUID().slice(0, 8)}`);
      await run('PostgreSQL, 1 instance', [['--database', one]], 'b');
      const two = withSchema(`bench_${randomUUID().slice(0, 8)}`);
      await run(
        'PostgreSQL, 2 instances',
        [
          ['--database', two],
          ['--database', two],
        ],
        'c',
      );
    } else {
      console.log('PostgreSQL figures skipped: set CAMROLL_TEST_DATABASE_URL (.ci/postgres.sh start prints one)');
    }
    console.log(await lockTest(home, catalog));
    console.log(
      `load after: ${loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')}`,
    );
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}

await main();
