/**
 * `npm run bench:archive [-- --files N --repeat N --dir D --keep --bin B]`
 *
 * Builds a ~600 MB export in a temp folder (1-4 MB photos, half deflated and half stored in
 * one zip, and the same photos as a .tgz), then times, in one run, interleaved rounds:
 *   - `unzip -p ZIP | sha256sum` (the baseline: every member inflated and hashed once),
 *   - `camroll scan ZIP --no-cache` (the real binary),
 *   - `camroll scan ZIP` again with the cache it just filled (the re-scan),
 *   - `tar -xzOf TGZ | sha256sum` and `camroll scan TGZ --no-cache`,
 * and prints the best time of each, the scan's peak RSS (/usr/bin/time -v) and the ratios
 * to the targets (zip >= 2 x unzip, RSS <= 300 MB, re-scan <= 0.25 x the scan, tgz >= 0.9 x tar).
 * Everything is in the page cache after the first round: warm, equally for all.
 */
import * as fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { writePhotoLibrary } from './scan-library.js';
import { best, loadText, mb, scanRun, timed, type ScanRun } from './timed-run.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

const { values: flags } = parseArgs({
  options: {
    files: { type: 'string' },
    keep: { type: 'boolean', default: false },
    dir: { type: 'string' },
    repeat: { type: 'string' },
    bin: { type: 'string' },
  },
});
const BIN = path.resolve(flags.bin ?? path.join(ROOT, 'bin', 'camroll.js'));
const env = process.env;
/** 240 photos of 1-4 MB: about 600 MB. */
const files = positive('--files', flags.files ?? '240');
const repeat = positive('--repeat', flags.repeat ?? '3');

function positive(name: string, text: string): number {
  const value = Number(text);
  if (!Number.isInteger(value) || value < 1)
    throw new Error(`${name} must be a whole number of at least 1, not ${text}`);
  return value;
}

async function shell(script: string, cwd?: string): Promise<number> {
  const run = await timed('sh', ['-c', script], cwd === undefined ? {} : { cwd });
  if (run.code !== 0) throw new Error(`${script} failed (${run.code}): ${run.stderr}`);
  return run.seconds;
}

/** This build's scan of an archive, with or without the cache. */
const scanOf = (archive: string, scanEnv: NodeJS.ProcessEnv, cache: boolean): Promise<ScanRun> =>
  scanRun(BIN, [archive, ...(cache ? [] : ['--no-cache'])], { env: scanEnv });

async function main(): Promise<void> {
  if (!fs.existsSync(path.join(path.dirname(BIN), '..', 'dist', 'cli', 'main.js')))
    throw new Error('run `npm run build` first');
  const work = flags.dir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'camroll-bench-archive-'));
  const lib = path.join(work, 'library');
  const zip = path.join(work, 'export.zip');
  const tgz = path.join(work, 'export.tgz');
  try {
    if (!fs.existsSync(zip) || !fs.existsSync(tgz)) {
      process.stderr.write(
        `writing ${files} photos (1-4 MB), then export.zip (half stored, half deflated) and export.tgz in ${work} ` +
          `...\n`,
      );
      fs.rmSync(lib, { recursive: true, force: true });
      writePhotoLibrary(lib, {
        count: files,
        minBytes: 1024 * 1024,
        maxBytes: 4 * 1024 * 1024,
        perFolder: Math.ceil(files / 2),
      });
      const folders = fs.readdirSync(lib).sort();
      // The first roll stored (-0), the rest deflated: both kinds of member in one archive.
      await shell(`zip -q -r -0 '${zip}' '${folders[0]}'`, lib);
      for (const folder of folders.slice(1)) await shell(`zip -q -r -6 '${zip}' '${folder}'`, lib);
      await shell(`tar -czf '${tgz}' ${folders.map((f) => `'${f}'`).join(' ')}`, lib);
      fs.rmSync(lib, { recursive: true, force: true }); // only the archives are read
    }
    const scanEnv = { ...env, XDG_CACHE_HOME: path.join(work, 'cache'), HOME: path.join(work, 'home') };
    const loadAtStart = os.loadavg();
    let unzip = Infinity;
    let untar = Infinity;
    let zipScan: ScanRun | null = null;
    let rescan: ScanRun | null = null;
    let tgzScan: ScanRun | null = null;
    for (let round = 0; round < repeat; round++) {
      unzip = Math.min(unzip, await shell(`unzip -p '${zip}' | sha256sum > /dev/null`));
      zipScan = best(zipScan, await scanOf(zip, scanEnv, false));
      fs.rmSync(scanEnv.XDG_CACHE_HOME, { recursive: true, force: true });
      await scanOf(zip, scanEnv, true); // fills the cache
      rescan = best(rescan, await scanOf(zip, scanEnv, true));
      untar = Math.min(untar, await shell(`tar -xzOf '${tgz}' | sha256sum > /dev/null`));
      tgzScan = best(tgzScan, await scanOf(tgz, scanEnv, false));
    }
    if (!zipScan || !rescan || !tgzScan) throw new Error('no rounds ran');
    const cpu =
      /model name\s*:\s*(.+)/.exec(fs.readFileSync('/proc/cpuinfo', 'utf8'))?.[1] ?? os.cpus()[0]?.model ?? '?';
    const bytes = zipScan.summary.bytes;
    const peak = Math.max(zipScan.peakRssMb ?? 0, rescan.peakRssMb ?? 0, tgzScan.peakRssMb ?? 0);
    const lines = [
      `machine: ${os.availableParallelism()} cores, ${cpu}, node ${process.version}, ${os.platform()} ${os.release()}`,
      `load average (1/5/15 min): ${loadText(loadAtStart)} at the start, ${loadText(os.loadavg())} at the end (other ` +
        `work on the machine slows every pass)`,
      `rounds: ${repeat}, interleaved, best time of each (peak RSS: the highest seen)`,
      `export: ${zipScan.summary.files} photos, ${mb(bytes)} MB; export.zip ${mb(fs.statSync(zip).size)} MB (half ` +
        `stored, half deflated), export.tgz ${mb(fs.statSync(tgz).size)} MB`,
      `unzip -p | sha256sum:     ${unzip.toFixed(2)} s  ${(bytes / 1e6 / unzip).toFixed(0)} MB/s`,
      `camroll scan ZIP:         ${zipScan.seconds.toFixed(2)} s  ${(bytes / 1e6 / zipScan.seconds).toFixed(0)} MB/s  peak RSS ${zipScan.peakRssMb?.toFixed(0) ?? 'n/a'} MB`,
      `camroll scan ZIP cached:  ${rescan.seconds.toFixed(2)} s  (${rescan.summary.cached} of ` +
        `${rescan.summary.files} from the cache)`,
      `tar -xzOf | sha256sum:    ${untar.toFixed(2)} s  ${(bytes / 1e6 / untar).toFixed(0)} MB/s`,
      `camroll scan TGZ:         ${tgzScan.seconds.toFixed(2)} s  ${(bytes / 1e6 / tgzScan.seconds).toFixed(0)} MB/s  peak RSS ${tgzScan.peakRssMb?.toFixed(0) ?? 'n/a'} MB`,
      `ratio zip scan speed / unzip:   ${(unzip / zipScan.seconds).toFixed(2)}  (target >= 2)`,
      `ratio re-scan / scan time:      ${(rescan.seconds / zipScan.seconds).toFixed(2)}  (target <= 0.25)`,
      `ratio tgz scan speed / tar:     ${(untar / tgzScan.seconds).toFixed(2)}  (target >= 0.9)`,
      `peak RSS:                       ${peak.toFixed(0)} MB  (target <= 300 MB)`,
    ];
    process.stdout.write(`${lines.join('\n')}\n`);
  } finally {
    if (!flags.keep && !flags.dir) fs.rmSync(work, { recursive: true, force: true });
    else process.stderr.write(`kept ${work}\n`);
  }
}

await main();
