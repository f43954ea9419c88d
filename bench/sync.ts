/**
 * bench:sync — `camroll sync` (fresh service database, fresh journal) against `camroll scan`
 * of the same generated library, like for like, in the same interleaved rounds: both with a
 * fresh scan cache (which each fills), and both with `--no-cache`. Prints the times, both
 * ratios (target <= 1.2), sync's peak RSS (target <= 300 MB at 100k files) and the time from
 * launch to the first batch sent (target <= 1 s at 5,000 files, though the walk lists the
 * whole library first): sync runs with --verbose, whose line per request gives when the
 * first POST .../media went out (seen at - its duration).
 *
 *   npm run bench:sync -- [--files 5000] [--photo-mb MIN-MAX] [--rounds 2] [--bin B] [--baseline B] [--keep]
 *
 * The generated JPEGs are ~4 KB each: the worst case for sync against scan, since hashing
 * costs nothing and every item's request, answer and journal row weigh the most. `--photo-mb
 * 1-4` pads each file (after its end-of-image marker, as camera files carry trailing data)
 * to a seeded size in that range, so hashing weighs as it does on a camera roll.
 *
 * `--bin B` times another build instead of this one; `--baseline B` times another build
 * (e.g. the previous commit's) as well, in the same rounds, so both see the same load.
 */
import { spawn } from 'node:child_process';
import { appendFileSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { BIN as OWN_BIN, tempHome } from '../test/e2e/helpers/camroll.js';
import { generateLibrary } from '../test/e2e/helpers/library.js';
import { startServe } from '../test/e2e/helpers/serve.js';
import { seededRandom } from '../src/util/seeded-random.js';

const KEY = 'sk_bench_local_key';
const { values: flags } = parseArgs({
  options: {
    files: { type: 'string', default: '5000' },
    'photo-mb': { type: 'string' },
    rounds: { type: 'string', default: '2' },
    bin: { type: 'string' },
    baseline: { type: 'string' },
    keep: { type: 'boolean', default: false },
  },
});
const BIN = flags.bin === undefined ? OWN_BIN : resolve(flags.bin);
const BASELINE = flags.baseline === undefined ? null : resolve(flags.baseline);

/** A whole number flag, or a clear error. */
function count(name: 'files' | 'rounds'): number {
  const value = Number(flags[name]);
  if (!Number.isInteger(value) || value < 1) throw new Error(`--${name} takes a whole number >= 1, got ${flags[name]}`);
  return value;
}

/** `--photo-mb MIN-MAX`: the range padded files are drawn from, or null (files stay ~4 KB). */
function photoSizes(): { min: number; max: number } | null {
  const range = flags['photo-mb'];
  if (range === undefined) return null;
  const m = /^(\d+(?:\.\d+)?)-(\d+(?:\.\d+)?)$/.exec(range);
  if (!m || Number(m[1]) > Number(m[2])) throw new Error('--photo-mb takes MIN-MAX in MB, e.g. 1-4');
  return { min: Number(m[1]) * 2 ** 20, max: Number(m[2]) * 2 ** 20 };
}

/** Pads every file under `dir` to a seeded size in the range; returns the library's bytes. */
function padFiles(dir: string, sizes: { min: number; max: number }): number {
  const random = seededRandom(2);
  const filler = Buffer.alloc(sizes.max);
  for (let i = 0; i < filler.length; i += 4) filler.writeUInt32LE(Math.floor(random() * 2 ** 32), i);
  let bytes = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile()) continue;
    const file = join(entry.parentPath, entry.name);
    const size = statSync(file).size;
    const target = Math.floor(sizes.min + random() * (sizes.max - sizes.min));
    if (target > size) appendFileSync(file, filler.subarray(0, target - size));
    bytes += Math.max(size, target);
  }
  return bytes;
}

/** Runs the binary under /usr/bin/time-like accounting: wall time and peak RSS (from /proc). */
interface Timed {
  seconds: number;
  peakRssMb: number;
  stdout: string;
  /** Seconds from launch to the first ingest request sent (with --verbose), or null. */
  firstBatchSeconds: number | null;
}

const INGEST_TRACE = /^camroll: POST \S+\/media -> .* \((\d+) ms, attempt \d+\)$/m;

async function timed(bin: string, args: string[], env: NodeJS.ProcessEnv): Promise<Timed> {
  const started = process.hrtime.bigint();
  const since = (): number => Number(process.hrtime.bigint() - started) / 1e9;
  const child = spawn(process.execPath, [bin, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  let firstBatchSeconds: number | null = null;
  child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => {
    stderr += d;
    const trace = firstBatchSeconds === null ? INGEST_TRACE.exec(stderr) : null;
    if (trace) firstBatchSeconds = since() - Number(trace[1]) / 1000;
  });
  let peak = 0;
  // VmHWM is the process's own high-water mark; sampled until exit, the last read wins.
  const sample = setInterval(() => {
    try {
      const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'));
      if (m) peak = Math.max(peak, Number(m[1]) / 1024);
    } catch {
      // exited
    }
  }, 50);
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  clearInterval(sample);
  if (code !== 0) throw new Error(`camroll ${args[0]} exited ${code}: ${stderr}`);
  return { seconds: since(), peakRssMb: peak, stdout, firstBatchSeconds };
}

const best = (a: Timed | null, b: Timed): Timed =>
  a === null
    ? b
    : {
        ...(a.seconds <= b.seconds ? a : b),
        peakRssMb: Math.max(a.peakRssMb, b.peakRssMb),
        firstBatchSeconds: Math.min(a.firstBatchSeconds ?? Infinity, b.firstBatchSeconds ?? Infinity),
      };

/** The four runs of one build: scan and sync, each with a fresh cache and without one. */
const RUNS = ['scan', 'sync', 'scan --no-cache', 'sync --no-cache'] as const;
type Run = (typeof RUNS)[number];
type Results = Record<Run, Timed | null>;

/** One run of one build, in a fresh home; sync gets a fresh service database and journal. */
async function runOnce(bin: string, run: Run, lib: string, homes: string[]): Promise<Timed> {
  const noCache = run.endsWith('--no-cache') ? ['--no-cache'] : [];
  const home = tempHome('camroll-bench-');
  homes.push(home.dir);
  if (run.startsWith('scan')) return timed(bin, ['scan', lib, ...noCache, '--json'], home.env);
  const serve = await startServe({ env: { ...home.env, CAMROLL_API_KEY: KEY }, db: join(home.dir, 'service.db') });
  try {
    return await timed(bin, ['sync', lib, ...noCache, '--email', 'bench@example.com', '--json', '--verbose'], {
      ...home.env,
      CAMROLL_BASE_URL: serve.baseUrl,
      CAMROLL_API_KEY: KEY,
    });
  } finally {
    await serve.stop();
  }
}

async function main(): Promise<void> {
  const files = count('files');
  /** Interleaved rounds; the best of each is kept (the machine is shared). */
  const rounds = count('rounds');
  const root = mkdtempSync(join(tmpdir(), 'camroll-bench-'));
  const lib = join(root, 'library');
  process.stderr.write(`generating ${files} JPEGs in ${lib} ...\n`);
  const facts = generateLibrary({ dir: lib, files, anchorShare: 0.03, seed: 1 });
  const sizes = photoSizes();
  const libraryBytes = sizes === null ? null : padFiles(lib, sizes);
  const loadAtStart = loadavg();
  const homes: string[] = [];
  const builds = [{ name: 'this build', bin: BIN }, ...(BASELINE ? [{ name: 'baseline', bin: BASELINE }] : [])];
  const results = builds.map(
    (): Results => ({ scan: null, sync: null, 'scan --no-cache': null, 'sync --no-cache': null }),
  );

  for (let round = 0; round < rounds; round++) {
    for (const run of RUNS) {
      for (const [i, build] of builds.entries()) {
        const result = await runOnce(build.bin, run, lib, homes);
        results[i]![run] = best(results[i]![run], result);
      }
    }
    process.stderr.write(`round ${round + 1} of ${rounds} done\n`);
  }
  const expectedMatched = [...facts.matchedByEvent.values()].reduce((a, b) => a + b, 0);
  const cpu = cpus()[0]?.model ?? 'unknown cpu';
  const load = (l: number[]): string => l.map((n) => n.toFixed(2)).join(' ');
  const lines = [
    `machine: ${cpus().length} x ${cpu}, ${(totalmem() / 2 ** 30).toFixed(1)} GiB RAM, Node ${process.version}`,
    `load average (1/5/15 min): ${load(loadAtStart)} at the start, ${load(loadavg())} at the end`,
    `rounds: ${rounds}, interleaved, best time of each`,
    `library: ${files} JPEGs (${expectedMatched} at anchor events)${libraryBytes === null ? ', ~4 KB each' : `, padded to ${flags['photo-mb']} MB (${(libraryBytes / 2 ** 30).toFixed(1)} GiB)`}`,
  ];
  const warnings: string[] = [];
  for (const [i, build] of builds.entries()) {
    const r = results[i]!;
    const [scan, sync, scanNoCache, syncNoCache] = RUNS.map((run) => r[run]!);
    if (!scan || !sync || !scanNoCache || !syncNoCache) throw new Error('no rounds ran');
    const summary = JSON.parse(sync.stdout) as { sent: number; accepted: number; matched: number; events: unknown[] };
    const first = Math.min(sync.firstBatchSeconds ?? Infinity, syncNoCache.firstBatchSeconds ?? Infinity);
    const peak = Math.max(sync.peakRssMb, syncNoCache.peakRssMb);
    lines.push(
      `-- ${build.name} (${build.bin})`,
      `scan (fresh cache):   ${scan.seconds.toFixed(2)} s, peak RSS ${scan.peakRssMb.toFixed(0)} MB`,
      `sync (fresh cache):   ${sync.seconds.toFixed(2)} s, peak RSS ${sync.peakRssMb.toFixed(0)} MB (sent ` +
        `${summary.sent}, accepted ${summary.accepted}, matched ${summary.matched}, events ${summary.events.length})`,
      `ratio sync/scan:      ${(sync.seconds / scan.seconds).toFixed(2)} (target <= 1.2)`,
      `scan --no-cache:      ${scanNoCache.seconds.toFixed(2)} s, peak RSS ${scanNoCache.peakRssMb.toFixed(0)} MB`,
      `sync --no-cache:      ${syncNoCache.seconds.toFixed(2)} s, peak RSS ${syncNoCache.peakRssMb.toFixed(0)} MB`,
      `ratio (--no-cache):   ${(syncNoCache.seconds / scanNoCache.seconds).toFixed(2)} (target <= 1.2)`,
      `first batch sent:     ${Number.isFinite(first) ? `${first.toFixed(2)} s after launch` : 'not seen'} (target <= 1 s at 5,000 files)`,
      `sync peak RSS:        ${peak.toFixed(0)} MB (target <= 300 MB at 100k files)`,
    );
    if (summary.matched !== expectedMatched)
      warnings.push(`warning: ${build.name}: matched ${summary.matched}, expected ${expectedMatched}`);
  }
  process.stdout.write(`${[...lines, ...warnings].join('\n')}\n`);
  if (!flags.keep) {
    for (const dir of [root, ...homes]) rmSync(dir, { recursive: true, force: true });
  }
}

await main();
