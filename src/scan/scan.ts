import * as fs from 'node:fs';
import { availableParallelism } from 'node:os';
import path from 'node:path';
import { InterruptedError, UsageError } from '../errors.js';
import { appPaths } from '../paths.js';
import { openScanCache, type ScanCache } from './cache.js';
import { createChannel } from './channel.js';
import { EXTRACTOR_VERSION } from './extract/version.js';
import { createFilePool, type FilePool } from './pool.js';
import type { ExtractFn, FileResult } from './read-file.js';
import type { ScanEvent, ScanRecord } from './types.js';
import { sidecarFingerprintOf, walk, type WalkFile, type WalkFs } from './walk.js';

export interface ScanOptions {
  /** Folders to scan (relative to `cwd`). A missing one is a UsageError. */
  roots: string[];
  /** Glob patterns to leave out (see walk.ts). */
  exclude?: string[];
  followSymlinks?: boolean;
  /** Use the scan cache (default true). */
  cache?: boolean;
  /** Where the cache lives (default: the user's cache folder). */
  cacheDir?: string;
  /** Worker threads (default: one per core, at most 4). 0 reads in this thread. */
  workers?: number;
  signal?: AbortSignal;
  /** Base for relative roots and for shown paths (default process.cwd()). */
  cwd?: string;
  /** Called once the walk has listed everything, with the number of media files found. */
  onWalkDone?: (files: number) => void;
  /** Test seams: an extractor (forces in-thread reads) and file-system calls for the walk. */
  extract?: ExtractFn;
  walkFs?: Partial<WalkFs>;
}

/**
 * Default thread cap: each worker costs ~40 MB, and past four threads a disk or a network
 * share, not SHA-256, is the limit. `--workers` goes higher on purpose.
 */
const MAX_DEFAULT_WORKERS = 4;

/**
 * Files per worker task, and bytes: small files share a thread round-trip. 32 MiB hashes in
 * about 20 ms, long beside a round-trip through a busy main thread, short enough that the
 * threads finish together.
 */
const TASK_FILES = 256;
const TASK_BYTES = 32 * 1024 * 1024; // 32 MiB

/**
 * Scans folders and streams one `record` per media file (out of order: files are read
 * concurrently), plus `skipped` and `warning` events. Unchanged files come from the scan
 * cache without being read. On abort it stops walking, drops unfinished reads, keeps the
 * cache consistent, then throws InterruptedError after the last event.
 */
export async function* scanLibrary(options: ScanOptions): AsyncGenerator<ScanEvent> {
  const cwd = options.cwd ?? process.cwd();
  const roots = resolveScanRoots(options.roots, cwd);
  const shownPath = pathShower(roots, cwd);
  const stop = new AbortController();
  const onAbort = (): void => stop.abort();
  options.signal?.addEventListener('abort', onAbort, { once: true });
  if (options.signal?.aborted) stop.abort();

  const out = createChannel<ScanEvent>({ limit: 1024 });
  let cache: ScanCache | null = null;
  if (options.cache !== false) {
    const dir = options.cacheDir ?? appPaths().cache;
    try {
      cache = openScanCache({ dir, extractorVersion: EXTRACTOR_VERSION });
    } catch (error) {
      out.pushNow({ type: 'warning', code: 'cache_unavailable', path: dir, message: `scan cache not used: ${String(error)}` });
    }
  }
  const workers = options.extract ? 0 : (options.workers ?? Math.min(availableParallelism(), MAX_DEFAULT_WORKERS));
  let pool: Promise<FilePool> | null = null;

  const produce = async (): Promise<void> => {
    // Started on the first cache miss, so a re-scan served from the cache (or a folder without
    // media) never starts a thread, and not awaited there: threads boot and load the extractor
    // while the walk fills the first task.
    const startPool = (): Promise<FilePool> =>
      (pool ??= createFilePool({ workers, ...(options.extract ? { extract: options.extract } : {}) }));
    const maxInFlight = Math.max(workers, 1) * 2; // one task running and one waiting per thread
    const inFlight = new Set<Promise<void>>();
    let group: WalkFile[] = [];
    let groupBytes = 0;
    let found = 0;

    const dispatch = async (): Promise<void> => {
      if (group.length === 0) return;
      const files = group;
      group = [];
      groupBytes = 0;
      while (inFlight.size >= maxInFlight) await Promise.race(inFlight);
      if (stop.signal.aborted) return;
      const running = await startPool();
      const task: Promise<void> = running.run(files.map((file) => file.absPath), stop.signal).then(
        (results) => {
          results.forEach((result, i) => finish(files[i]!, result));
        },
        (error: unknown) => {
          if (stop.signal.aborted) return; // unfinished reads are dropped, not reported
          for (const file of files) {
            finish(file, { absPath: file.absPath, size: file.size, media: null, source: null, cacheable: false, error: { code: 'internal_error', message: String(error) } });
          }
        },
      );
      const tracked = task.finally(() => inFlight.delete(tracked));
      inFlight.add(tracked);
    };

    const finish = (file: WalkFile, result: FileResult): void => {
      const record = toRecord(file, result, false);
      if (result.cacheable) cache?.put(file, record);
      out.pushNow({ type: 'record', record });
    };

    // Files named on the command line are read as they are; folders are walked.
    const fileRoots: WalkFile[] = [];
    const folderRoots: string[] = [];
    for (const root of roots) {
      const stats = fs.statSync(root);
      if (!stats.isFile()) folderRoots.push(root);
      else {
        fileRoots.push({
          type: 'file',
          path: path.basename(root),
          absPath: root,
          size: stats.size,
          mtimeMs: stats.mtimeMs,
          ino: stats.ino,
          sidecarFingerprint: sidecarFingerprintOf(path.dirname(root)),
        });
      }
    }
    for await (const event of chain(fileRoots, walk({
      roots: folderRoots,
      exclude: options.exclude,
      followSymlinks: options.followSymlinks,
      signal: stop.signal,
      fs: options.walkFs,
    }))) {
      if (stop.signal.aborted) break;
      if (event.type === 'skipped') {
        await out.push({ type: 'skipped', reason: event.reason, path: shownPath(event.absPath) });
        continue;
      }
      if (event.type === 'warning') {
        await out.push({ type: 'warning', code: event.code, path: shownPath(event.absPath), message: event.message });
        continue;
      }
      found += 1;
      const hit = cache?.get(event);
      if (hit) {
        await out.push({ type: 'record', record: toRecord(event, hit, true) });
        continue;
      }
      if (pool === null) startPool().catch(() => undefined); // a failure surfaces in dispatch
      group.push(event);
      groupBytes += event.size;
      if (group.length >= TASK_FILES || groupBytes >= TASK_BYTES) await dispatch();
      await out.room();
    }
    await dispatch();
    if (!stop.signal.aborted) options.onWalkDone?.(found);
    await Promise.allSettled([...inFlight]);
  };

  const producer = produce().then(
    () => out.close(),
    (error: unknown) => out.fail(error),
  );
  try {
    for await (const event of out) {
      if (stop.signal.aborted) break; // what is still queued after Ctrl-C is dropped (it is cached)
      yield event;
    }
  } finally {
    // The consumer may have stopped early: stop reading, and unblock a producer waiting for room.
    stop.abort();
    out.close();
    await producer;
    options.signal?.removeEventListener('abort', onAbort);
    try {
      cache?.close();
    } finally {
      const started = await (pool as Promise<FilePool> | null)?.catch(() => null);
      await started?.close();
    }
  }
  if (options.signal?.aborted) throw new InterruptedError('scan interrupted');
}

/**
 * Absolute, existing folders or files (UsageError otherwise); a folder or file inside another
 * given folder is dropped, so each file is read once. The CLI calls it first to fail before
 * any work. A file is read whatever its name (support's "why didn't this photo match?").
 */
export function resolveScanRoots(roots: string[], cwd: string): string[] {
  if (roots.length === 0) throw new UsageError('no folder to scan');
  const resolved: string[] = [];
  for (const root of roots) {
    const absolute = path.resolve(cwd, root);
    let stats: fs.Stats;
    try {
      stats = fs.statSync(absolute);
    } catch {
      throw new UsageError(`no such folder or file: ${root}`);
    }
    if (!stats.isDirectory() && !stats.isFile()) throw new UsageError(`not a folder or a file: ${root}`);
    resolved.push(absolute);
  }
  const sorted = [...new Set(resolved)].sort();
  return sorted.filter((root, i) => !sorted.slice(0, i).some((outer) => isInside(outer, root)));
}

/** Whether `inner` lies below `outer` (also when `outer` is the file-system root). */
function isInside(outer: string, inner: string): boolean {
  const relative = path.relative(outer, inner);
  return relative !== '' && relative.split(path.sep)[0] !== '..' && !path.isAbsolute(relative);
}

/** Paths shown for one root are relative to it; with several roots, relative to the cwd. */
function pathShower(roots: string[], cwd: string): (absPath: string) => string {
  const base = roots.length === 1 ? roots[0]! : cwd;
  // A root itself (an unreadable folder given on the command line) is named as the user would
  // find it, never as an empty path.
  const asGiven = (absPath: string): string => path.relative(cwd, absPath) || '.';
  return (absPath) => (absPath === base ? asGiven(absPath) : path.relative(base, absPath)).split(path.sep).join('/');
}

/** The path a record is shown under (`--jsonl`, report): see pathShower. */
export function displayPathOf(record: Pick<ScanRecord, 'path' | 'absPath'>, rootCount: number, cwd: string): string {
  if (rootCount <= 1) return record.path;
  return path.relative(cwd, record.absPath).split(path.sep).join('/');
}

function toRecord(file: WalkFile, result: Pick<FileResult, 'media' | 'source' | 'error'>, cached: boolean): ScanRecord {
  return {
    path: file.path,
    absPath: file.absPath,
    size: file.size,
    mtimeMs: file.mtimeMs,
    media: result.media,
    source: result.source,
    error: result.error,
    cached,
  };
}

/** The given items, then those of the iterable. */
async function* chain<T>(first: readonly T[], rest: AsyncIterable<T>): AsyncGenerator<T> {
  yield* first;
  yield* rest;
}

