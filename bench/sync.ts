/**
 * bench:sync — `camroll scan` (no cache, fresh) versus `camroll sync` (fresh cache, fresh
 * service database) of the same generated library, against a local `camroll serve`.
 * Prints both times, the ratio (target <= 1.2) and sync's peak RSS (target <= 300 MB at 100k files).
 *
 *   npm run bench:sync -- [--files 5000] [--keep]
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { cpus, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { BIN, tempHome } from '../test/e2e/helpers/camroll.js';
import { generateLibrary } from '../test/e2e/helpers/library.js';
import { startServe } from '../test/e2e/helpers/serve.js';

const KEY = 'sk_bench_local_key';

function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
}

/** Runs the binary under /usr/bin/time-like accounting: wall time and peak RSS (from /proc). */
async function timed(args: string[], env: NodeJS.ProcessEnv): Promise<{ seconds: number; peakRssMb: number; stdout: string }> {
  const started = process.hrtime.bigint();
  const child = spawn(process.execPath, [BIN, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
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
  return { seconds: Number(process.hrtime.bigint() - started) / 1e9, peakRssMb: peak, stdout };
}

async function main(): Promise<void> {
  const files = arg('files', 5000);
  const root = mkdtempSync(join(tmpdir(), 'camroll-bench-'));
  const lib = join(root, 'library');
  process.stderr.write(`generating ${files} JPEGs in ${lib} ...\n`);
  const facts = generateLibrary({ dir: lib, files, anchorShare: 0.03, seed: 1 });

  const scanHome = tempHome('camroll-bench-scan-');
  const scan = await timed(['scan', lib, '--no-cache', '--json'], scanHome.env);

  const syncHome = tempHome('camroll-bench-sync-');
  const serve = await startServe({ env: { ...syncHome.env, CAMROLL_API_KEY: KEY }, db: join(root, 'service.db') });
  let sync;
  try {
    sync = await timed(['sync', lib, '--email', 'bench@example.com', '--json'], {
      ...syncHome.env,
      CAMROLL_BASE_URL: serve.baseUrl,
      CAMROLL_API_KEY: KEY,
    });
  } finally {
    await serve.stop();
  }
  const summary = JSON.parse(sync.stdout) as { sent: number; accepted: number; matched: number; events: unknown[] };
  const expectedMatched = [...facts.matchedByEvent.values()].reduce((a, b) => a + b, 0);

  const cpu = cpus()[0]?.model ?? 'unknown cpu';
  const lines = [
    `machine: ${cpus().length} x ${cpu}, ${(totalmem() / 2 ** 30).toFixed(1)} GiB RAM, Node ${process.version}`,
    `library: ${files} JPEGs (${expectedMatched} at anchor events)`,
    `scan (--no-cache):   ${scan.seconds.toFixed(2)} s, peak RSS ${scan.peakRssMb.toFixed(0)} MB`,
    `sync (fresh):        ${sync.seconds.toFixed(2)} s, peak RSS ${sync.peakRssMb.toFixed(0)} MB (sent ${summary.sent}, accepted ${summary.accepted}, matched ${summary.matched}, events ${summary.events.length})`,
    `ratio sync/scan:     ${(sync.seconds / scan.seconds).toFixed(2)} (target <= 1.2)`,
    `sync peak RSS:       ${sync.peakRssMb.toFixed(0)} MB (target <= 300 MB at 100k files)`,
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
  if (summary.matched !== expectedMatched) process.stdout.write(`warning: matched ${summary.matched}, expected ${expectedMatched}\n`);
  if (!process.argv.includes('--keep')) {
    for (const dir of [root, scanHome.dir, syncHome.dir]) rmSync(dir, { recursive: true, force: true });
  }
}

await main();
