/**
 * bench:sync — `camroll scan` (no cache, fresh) versus `camroll sync` (fresh cache, fresh
 * service database) of the same generated library, against a local `camroll serve`.
 * Prints both times, the ratio (target <= 1.2), sync's peak RSS (target <= 300 MB at 100k
 * files) and the time from launch to the first batch sent (target <= 1 s at 5,000 files,
 * though the walk lists the whole library first): sync runs with --verbose, whose line per
 * request gives when the first POST .../media went out (seen at - its duration).
 *
 *   npm run bench:sync -- [--files 5000] [--rounds 2] [--bin B] [--keep]
 *
 * `--bin B` times another build (e.g. the previous commit's) on the same library.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { join, resolve } from 'node:path';
import { BIN as OWN_BIN, tempHome } from '../test/e2e/helpers/camroll.js';
import { generateLibrary } from '../test/e2e/helpers/library.js';
import { startServe } from '../test/e2e/helpers/serve.js';

const KEY = 'sk_bench_local_key';
const binAt = process.argv.indexOf('--bin');
const BIN = binAt >= 0 ? resolve(process.argv[binAt + 1]!) : OWN_BIN;

function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
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

async function timed(args: string[], env: NodeJS.ProcessEnv): Promise<Timed> {
  const started = process.hrtime.bigint();
  const since = (): number => Number(process.hrtime.bigint() - started) / 1e9;
  const child = spawn(process.execPath, [BIN, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
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

async function main(): Promise<void> {
  const files = arg('files', 5000);
  /** Interleaved rounds; the best of each is kept (the machine is shared). */
  const rounds = Math.max(1, arg('rounds', 2));
  const root = mkdtempSync(join(tmpdir(), 'camroll-bench-'));
  const lib = join(root, 'library');
  process.stderr.write(`generating ${files} JPEGs in ${lib} ...\n`);
  const facts = generateLibrary({ dir: lib, files, anchorShare: 0.03, seed: 1 });
  const loadAtStart = loadavg();
  const homes: string[] = [];

  let scan: Timed | null = null;
  let sync: Timed | null = null;
  for (let round = 0; round < rounds; round++) {
    const scanHome = tempHome('camroll-bench-scan-');
    homes.push(scanHome.dir);
    scan = best(scan, await timed(['scan', lib, '--no-cache', '--json'], scanHome.env));

    // A fresh cache, journal and service database each round: a first sync of the library.
    const syncHome = tempHome('camroll-bench-sync-');
    homes.push(syncHome.dir);
    const serve = await startServe({ env: { ...syncHome.env, CAMROLL_API_KEY: KEY }, db: join(root, `service-${round}.db`) });
    try {
      sync = best(
        sync,
        await timed(['sync', lib, '--email', 'bench@example.com', '--json', '--verbose'], {
          ...syncHome.env,
          CAMROLL_BASE_URL: serve.baseUrl,
          CAMROLL_API_KEY: KEY,
        }),
      );
    } finally {
      await serve.stop();
    }
  }
  if (!scan || !sync) throw new Error('no rounds ran');
  const summary = JSON.parse(sync.stdout) as { sent: number; accepted: number; matched: number; events: unknown[] };
  const expectedMatched = [...facts.matchedByEvent.values()].reduce((a, b) => a + b, 0);

  const cpu = cpus()[0]?.model ?? 'unknown cpu';
  const load = (l: number[]): string => l.map((n) => n.toFixed(2)).join(' ');
  const first = sync.firstBatchSeconds;
  const lines = [
    `machine: ${cpus().length} x ${cpu}, ${(totalmem() / 2 ** 30).toFixed(1)} GiB RAM, Node ${process.version}`,
    `load average (1/5/15 min): ${load(loadAtStart)} at the start, ${load(loadavg())} at the end`,
    `rounds: ${rounds}, best time of each`,
    `library: ${files} JPEGs (${expectedMatched} at anchor events)`,
    `scan (--no-cache):   ${scan.seconds.toFixed(2)} s, peak RSS ${scan.peakRssMb.toFixed(0)} MB`,
    `sync (fresh):        ${sync.seconds.toFixed(2)} s, peak RSS ${sync.peakRssMb.toFixed(0)} MB (sent ${summary.sent}, accepted ${summary.accepted}, matched ${summary.matched}, events ${summary.events.length})`,
    `ratio sync/scan:     ${(sync.seconds / scan.seconds).toFixed(2)} (target <= 1.2)`,
    `first batch sent:    ${first === null || !Number.isFinite(first) ? 'not seen' : `${first.toFixed(2)} s after launch`} (target <= 1 s at 5,000 files)`,
    `sync peak RSS:       ${sync.peakRssMb.toFixed(0)} MB (target <= 300 MB at 100k files)`,
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
  if (summary.matched !== expectedMatched) process.stdout.write(`warning: matched ${summary.matched}, expected ${expectedMatched}\n`);
  if (!process.argv.includes('--keep')) {
    for (const dir of [root, ...homes]) rmSync(dir, { recursive: true, force: true });
  }
}

await main();
