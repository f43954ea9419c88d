/**
 * `npm run bench:scan [-- --files N --videos N --tiny --repeat N --dir D --keep --bin B]`
 *
 * Builds a synthetic library in a temp folder, then times, in one run and on the same files:
 *   - two parallel `openssl dgst -sha256` processes over the file list (the hashing limit),
 *   - a whole-process Node fast-glob listing of the tree with stats (the walking limit),
 *   - `camroll scan` (the real binary) with an empty cache: full scan,
 *   - `camroll scan` again on the unchanged library: served from the cache,
 * and prints files/s, MB/s, the scan's peak RSS (/usr/bin/time -v) and the ratios to the
 * targets (full >= 0.85 x openssl, re-scan <= 2 x listing, RSS <= 250 MB at 100k files).
 * The library fits in RAM and was just written (or read by an earlier run), so every pass reads
 * it from the page cache: warm, equally for the baselines and the scan.
 */
import * as fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { writeMp4, writePhotoLibrary } from './scan-library.js';
import { best, loadText, mb, scanRun, timed, type ScanRun } from './timed-run.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

const { values: flags } = parseArgs({
  options: {
    files: { type: 'string' },
    'min-kb': { type: 'string' },
    'max-kb': { type: 'string' },
    videos: { type: 'string' },
    'video-mb': { type: 'string' },
    tiny: { type: 'boolean', default: false },
    workers: { type: 'string' },
    keep: { type: 'boolean', default: false },
    dir: { type: 'string' },
    repeat: { type: 'string' },
    bin: { type: 'string' },
  },
});
/** The binary to time (`--bin`: another build, e.g. the previous commit's, for a before/after). */
const BIN = path.resolve(flags.bin ?? path.join(ROOT, 'bin', 'camroll.js'));
const env = process.env;
const tiny = flags.tiny;
const files = Number(flags.files ?? env.BENCH_FILES ?? (tiny ? 100_000 : 2000));
const minKb = Number(flags['min-kb'] ?? (tiny ? 2 : 1024));
const maxKb = Number(flags['max-kb'] ?? (tiny ? 8 : 4096));
const videos = Number(flags.videos ?? env.BENCH_VIDEOS ?? (tiny ? 0 : 3));
const videoMb = Number(flags['video-mb'] ?? 120);
/** Rounds of every measurement, interleaved; the best of each is reported (the machine is shared). */
const repeat = Math.max(1, Number(flags.repeat ?? env.BENCH_REPEAT ?? 3));

function listMedia(dir: string): { paths: string[]; bytes: number } {
  const paths: string[] = [];
  let bytes = 0;
  const visit = (folder: string): void => {
    for (const entry of fs.readdirSync(folder, { withFileTypes: true })) {
      const full = path.join(folder, entry.name);
      if (entry.isDirectory()) visit(full);
      else {
        paths.push(full);
        bytes += fs.statSync(full).size;
      }
    }
  };
  visit(dir);
  return { paths, bytes };
}

/** Two openssl processes, each over half the bytes (greedy by size), through xargs. */
async function opensslBaseline(paths: string[], work: string): Promise<number> {
  const sized = paths.map((p) => ({ p, size: fs.statSync(p).size })).sort((a, b) => b.size - a.size);
  const halves: { list: string[]; bytes: number }[] = [
    { list: [], bytes: 0 },
    { list: [], bytes: 0 },
  ];
  for (const file of sized) {
    const target = halves[0]!.bytes <= halves[1]!.bytes ? halves[0]! : halves[1]!;
    target.list.push(file.p);
    target.bytes += file.size;
  }
  const started = process.hrtime.bigint();
  await Promise.all(
    halves.map(async (half, i) => {
      const listFile = path.join(work, `openssl-${i}.list`);
      fs.writeFileSync(listFile, half.list.join('\0'));
      const run = await timed('sh', ['-c', `xargs -0 openssl dgst -sha256 -r < '${listFile}' > /dev/null`]);
      if (run.code !== 0) throw new Error(`openssl failed: ${run.stderr}`);
    }),
  );
  return Number(process.hrtime.bigint() - started) / 1e9;
}

/** A separate Node process listing the tree with fast-glob and stats, as a scan's walk would. */
async function listingBaseline(dir: string, work: string): Promise<number> {
  const fastGlob = createRequire(import.meta.url).resolve('fast-glob');
  const script = path.join(work, 'listing.mjs');
  fs.writeFileSync(
    script,
    `import fg from ${JSON.stringify(fastGlob)};\n` +
      `let n = 0, bytes = 0;\n` +
      `for await (const e of fg.stream('**', { cwd: ${JSON.stringify(dir)}, dot: true, stats: true, objectMode: ` +
      `true, unique: false, followSymbolicLinks: false })) { n++; bytes += e.stats.size; }\n` +
      `console.log(n, bytes);\n`,
  );
  const run = await timed(process.execPath, [script]);
  if (run.code !== 0) throw new Error(`listing failed: ${run.stderr}`);
  return run.seconds;
}

/** This build's scan of `dir` (exit 1 is allowed: a generated library may hold a damaged file). */
const scanOf = (dir: string, scanEnv: NodeJS.ProcessEnv): Promise<ScanRun> =>
  scanRun(BIN, [dir, ...(flags.workers ? ['--workers', flags.workers] : [])], { env: scanEnv, accept: [0, 1] });

const rate = (n: number, seconds: number): string => (n / seconds).toFixed(n / seconds < 100 ? 1 : 0);

async function main(): Promise<void> {
  if (!fs.existsSync(path.join(path.dirname(BIN), '..', 'dist', 'cli', 'main.js')))
    throw new Error('run `npm run build` first');
  const work = flags.dir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'camroll-bench-scan-'));
  const lib = path.join(work, 'library');
  try {
    if (!fs.existsSync(lib)) {
      process.stderr.write(
        `writing ${files} photos (${minKb}-${maxKb} KB) and ${videos} videos of ${videoMb} MB to ${lib} ...\n`,
      );
      writePhotoLibrary(lib, { count: files, minBytes: minKb * 1024, maxBytes: maxKb * 1024, perFolder: 500 });
      for (let i = 0; i < videos; i++) {
        fs.mkdirSync(path.join(lib, 'videos'), { recursive: true });
        writeMp4(path.join(lib, 'videos', `VID_${i}.MP4`), {
          mediaBytes: videoMb * 1024 * 1024,
          created: new Date(Date.UTC(2023, 5, 1 + i)),
          durationSeconds: 60 + i,
        });
      }
    }
    const { paths, bytes } = listMedia(lib);
    const scanEnv = { ...env, XDG_CACHE_HOME: path.join(work, 'cache'), HOME: path.join(work, 'home') };
    fs.rmSync(scanEnv.XDG_CACHE_HOME, { recursive: true, force: true });

    // The binary's fixed cost (start-up, loading every command): a scan of an empty folder.
    const loadAtStart = os.loadavg();
    const empty = path.join(work, 'empty');
    fs.mkdirSync(empty, { recursive: true });
    let openssl = Infinity;
    let listing = Infinity;
    let startup = Infinity;
    let full: ScanRun | null = null;
    let again: ScanRun | null = null;
    for (let round = 0; round < repeat; round++) {
      openssl = Math.min(openssl, await opensslBaseline(paths, work));
      listing = Math.min(listing, await listingBaseline(lib, work));
      startup = Math.min(startup, (await scanOf(empty, scanEnv)).seconds);
      fs.rmSync(scanEnv.XDG_CACHE_HOME, { recursive: true, force: true }); // full scan: empty cache
      full = best(full, await scanOf(lib, scanEnv));
      again = best(again, await scanOf(lib, scanEnv));
    }
    if (!full || !again) throw new Error('no rounds ran');

    const cpu =
      /model name\s*:\s*(.+)/.exec(fs.readFileSync('/proc/cpuinfo', 'utf8'))?.[1] ?? os.cpus()[0]?.model ?? '?';
    const lines = [
      `machine: ${os.availableParallelism()} cores, ${cpu}, node ${process.version}, ${os.platform()} ${os.release()}`,
      `load average (1/5/15 min): ${loadText(loadAtStart)} at the start, ${loadText(os.loadavg())} at the end (other ` +
        `work on the machine slows every pass)`,
      `rounds: ${repeat}, best time of each (peak RSS: the highest seen)`,
      `library: ${paths.length} files, ${mb(bytes)} MB (${files} photos ${minKb}-${maxKb} KB, ${videos} videos of ` +
        `${videoMb} MB); page cache warm (the library fits in RAM and was just written or read)`,
      `openssl x2:   ${openssl.toFixed(2)} s  ${rate(paths.length, openssl)} files/s  ${rate(bytes / 1e6, openssl)} ` +
        `MB/s`,
      `listing:      ${listing.toFixed(2)} s  (node + fast-glob with stats, whole process)`,
      `full scan:    ${full.seconds.toFixed(2)} s  ${rate(paths.length, full.seconds)} files/s  ${rate(bytes / 1e6, full.seconds)} MB/s  peak RSS ${full.peakRssMb?.toFixed(0) ?? 'n/a'} MB  (${full.summary.files} files, ${full.summary.cached} cached)`,
      `re-scan:      ${again.seconds.toFixed(2)} s  ${rate(paths.length, again.seconds)} files/s  peak RSS ${again.peakRssMb?.toFixed(0) ?? 'n/a'} MB  (${again.summary.cached} of ${again.summary.files} from the cache)`,
      `start-up:     ${startup.toFixed(2)} s  (camroll scan of an empty folder)`,
      `ratio full scan / openssl rate:  ${(openssl / full.seconds).toFixed(2)}  (target >= 0.85; ` +
        `${(openssl / (full.seconds - startup)).toFixed(2)} without the start-up)`,
      `ratio re-scan / listing time:    ${(again.seconds / listing).toFixed(2)}  (target <= 2; ` +
        `${((again.seconds - startup) / listing).toFixed(2)} without the start-up)`,
      `peak RSS:                        ${Math.max(full.peakRssMb ?? 0, again.peakRssMb ?? 0).toFixed(0)} MB  ` +
        `(target <= 250 MB at 100k files)`,
    ];
    process.stdout.write(`${lines.join('\n')}\n`);
  } finally {
    if (!flags.keep && !flags.dir) fs.rmSync(work, { recursive: true, force: true });
    else process.stderr.write(`kept ${work}\n`);
  }
}

await main();
