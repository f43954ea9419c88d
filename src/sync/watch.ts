import { EventEmitter, on } from 'node:events';
import { readdir, statSync, type Dirent, type Stats } from 'node:fs';
import * as fsp from 'node:fs/promises';
import path from 'node:path';
import { watch as chokidarWatch, type ChokidarOptions, type FSWatcher } from 'chokidar';
import { classifyPath, createBatchStat, createExcludeMatcher } from '../scan/index.js';

/**
 * `sync --watch`: watches the library's folders after (and from just before) the pass and
 * reports files to read again, in batches, once they stopped changing. The same rules as
 * the walk decide what is looked at: junk folders and files, `--exclude`, media and sidecar
 * names. Events only; what to do with a batch is the caller's.
 */

/** How long a file must stay the same size before it is read (a copy in progress is not). */
export const DEFAULT_SETTLE_MS = 2 * 1000; // 2 s
/** Changes are gathered until none came for this long, so a folder copied in is one batch. */
export const DEFAULT_QUIET_MS = 500; // 0.5 s
/** A batch never waits for quiet beyond this many files. */
export const DEFAULT_MAX_BATCH_FILES = 1000;
/** Polling re-reads each folder this often (network shares send no change events). */
export const POLL_INTERVAL_MS = 2 * 1000; // 2 s

export type WatchEvent =
  /** Watches are set on every folder: anything that changes from now on is seen. */
  | { type: 'ready'; polling: boolean }
  /** Media files and archives (absolute paths) added or changed, settled, to read again. */
  | { type: 'changes'; files: string[] }
  /** The watcher met a problem (a folder it cannot watch, the system's watch limit). */
  | { type: 'warning'; code: 'watch_error'; message: string };

export interface WatchOptions {
  /** Absolute folders (or files) to watch, as the scan resolved them. */
  roots: string[];
  /** `--exclude` patterns, relative to each root, as the walk reads them. */
  exclude?: string[];
  followSymlinks?: boolean;
  /** Poll instead of listening for events (`--poll`; automatic for network shares). */
  poll?: boolean;
  settleMs?: number;
  quietMs?: number;
  maxBatchFiles?: number;
  /** Stops watching: the iteration ends after what is already gathered is dropped. */
  signal: AbortSignal;
  /** Test seam: the watcher factory (chokidar's `watch`). */
  watch?: (paths: string[], options: ChokidarOptions) => FSWatcher;
}

/** Whether a path lies below (or is) one of the roots; returns the relative POSIX path, or null. */
function relativeToRoots(roots: readonly string[], absPath: string): string | null {
  for (const root of roots) {
    const rel = path.relative(root, absPath);
    if (rel === '') return '';
    if (!rel.startsWith('..') && !path.isAbsolute(rel)) return rel.split(path.sep).join('/');
  }
  return null;
}

/**
 * The walk's rules as one predicate: true for what the walk would leave out (a junk folder
 * anywhere on the path, a junk file name, a name neither media, sidecar nor archive, a path
 * `--exclude` matches).
 * `isFile` is undefined when the watcher does not know yet.
 */
export function createWatchFilter(
  roots: readonly string[],
  exclude: readonly string[] = [],
): (absPath: string, isFile?: boolean) => boolean {
  // The walk's own --exclude rule, compiled once: the watcher asks about every path it meets.
  const excluded = createExcludeMatcher(exclude);
  return (absPath, isFile) => {
    const rel = relativeToRoots(roots, absPath);
    if (rel === null || rel === '') return false;
    if (isFile === false) return classifyPath(rel, { type: 'folder', excluded }).kind !== 'folder';
    const asFile = classifyPath(rel, { excluded });
    // Not known yet: left out only when both rules leave it out (a junk name, or a junk folder on its way).
    if (isFile === undefined)
      return (
        asFile.kind === 'excluded' ||
        (asFile.kind === 'skip' &&
          asFile.reason !== 'not_media' &&
          classifyPath(rel, { type: 'folder', excluded }).kind !== 'folder')
      );
    // An archive is reported too: the follower reads it (`--archives`, or named) or counts it as skipped.
    return asFile.kind !== 'media' && asFile.kind !== 'sidecar' && asFile.kind !== 'archive';
  };
}

/** Media files of one folder the walk would read (for a sidecar that changed beside them). */
function mediaBeside(dir: string, skip: (absPath: string, isFile?: boolean) => boolean): Promise<string[]> {
  return new Promise((resolve) => {
    readdir(dir, { withFileTypes: true }, (error, entries) => {
      if (error) {
        resolve([]);
        return;
      }
      resolve(
        entries
          .filter((entry) => entry.isFile())
          .map((entry) => path.join(dir, entry.name))
          .filter((file) => classifyPath(path.basename(file)).kind === 'media' && !skip(file, true)),
      );
    });
  });
}

/** Files a new folder's listing stats in one batch. */
const STAT_BATCH = 256;

/** A missed file as one listing saw it. */
export interface MissedFile {
  file: string;
  mtimeMs: number;
  /** Size and modification time: equal in two listings, the file was not written in between. */
  signature: string;
}

/** Stats batches of files as the walk does (in turn when cached, concurrently on a slow share). */
type StatBatch = ReturnType<typeof createBatchStat>;

/**
 * The media and sidecar files under a new folder (its subfolders included) that the watcher
 * has not reported, with their modification times and sizes; a subfolder it has not
 * reported is handed to `watch` (missed as well, it would otherwise miss what arrives there
 * later too). Folder by folder, as the walk goes: a folder the walk skips (junk, `--exclude`)
 * is never opened, and at most one folder's entries and one batch of names are in memory.
 */
async function missedFiles(
  dir: string,
  reported: { readonly files: ReadonlySet<string>; readonly folders: ReadonlySet<string> },
  skip: (absPath: string, isFile?: boolean) => boolean,
  watch: (folder: string) => void,
  statBatch: StatBatch,
): Promise<MissedFile[]> {
  const missed: MissedFile[] = [];
  let candidates: string[] = [];
  const statCandidates = async (): Promise<void> => {
    const files = candidates;
    candidates = [];
    const outcomes = await statBatch(files);
    outcomes.forEach(({ stats }, i) => {
      if (stats) missed.push({ file: files[i]!, mtimeMs: stats.mtimeMs, signature: `${stats.size}:${stats.mtimeMs}` });
    });
  };
  const folders = [dir];
  while (folders.length > 0) {
    const folder = folders.pop()!;
    const entries = await new Promise<Dirent[]>((resolve) =>
      readdir(folder, { withFileTypes: true }, (error, found) => resolve(error ? [] : found)),
    );
    for (const entry of entries) {
      const absPath = path.join(folder, entry.name);
      if (entry.isDirectory()) {
        if (skip(absPath, false)) continue;
        if (!reported.folders.has(absPath)) watch(absPath);
        folders.push(absPath);
      } else if (entry.isFile() && !reported.files.has(absPath) && !skip(absPath, true)) {
        candidates.push(absPath);
        if (candidates.length >= STAT_BATCH) await statCandidates();
      }
    }
  }
  await statCandidates();
  return missed;
}

/**
 * Which missed files a listing takes: those older than the settle time, and those the
 * previous listing saw with the same size and date (a share whose clock runs ahead dates
 * files in the future). The rest are still being written: `changing`, to compare with at
 * the next listing. Pure, so the rule is tested without waiting on a clock.
 */
export function settleMissed(
  missed: readonly MissedFile[],
  previous: ReadonlyMap<string, string>,
  nowMs: number,
  settleMs: number,
): { settled: string[]; changing: Map<string, string> } {
  const settled: string[] = [];
  const changing = new Map<string, string>();
  for (const { file, mtimeMs, signature } of missed) {
    if (nowMs - mtimeMs < settleMs && previous.get(file) !== signature) changing.set(file, signature);
    else settled.push(file);
  }
  return { settled, changing };
}

/**
 * Watches the roots until `signal` aborts and yields a `ready` event, then batches of
 * settled media files and archives to read again (an archive's size must settle too: a part
 * still downloading under its final name is not read). A changed sidecar (.json, .xmp) brings back the media
 * files of its folder, as the scan cache would. Deleted files are dropped from the batch
 * being gathered (the contract has no delete).
 */
export async function* watchLibrary(options: WatchOptions): AsyncGenerator<WatchEvent> {
  const settleMs = options.settleMs ?? DEFAULT_SETTLE_MS;
  const quietMs = options.quietMs ?? DEFAULT_QUIET_MS;
  const maxBatch = options.maxBatchFiles ?? DEFAULT_MAX_BATCH_FILES;
  const skip = createWatchFilter(options.roots, options.exclude);
  // The watcher's callbacks become one async stream; events.on queues what the consumer has
  // not taken yet and ends (AbortError) when the signal aborts.
  const out = new EventEmitter();
  const push = (event: WatchEvent): boolean => out.emit('event', event);
  const polling = options.poll === true;
  const watcher = (options.watch ?? chokidarWatch)(options.roots, {
    ignoreInitial: true,
    followSymlinks: options.followSymlinks ?? false,
    usePolling: polling,
    interval: POLL_INTERVAL_MS,
    binaryInterval: POLL_INTERVAL_MS,
    ignorePermissionErrors: false,
    awaitWriteFinish: { stabilityThreshold: settleMs, pollInterval: Math.min(100, settleMs) },
    ignored: (absPath: string, stats?: Stats) => skip(absPath, stats === undefined ? undefined : stats.isFile()),
  });

  const media = new Set<string>();
  const sidecarFolders = new Set<string>();
  let timer: NodeJS.Timeout | null = null;
  const flush = async (): Promise<void> => {
    timer = null;
    const folders = [...sidecarFolders];
    sidecarFolders.clear();
    for (const dir of folders) for (const file of await mediaBeside(dir, skip)) media.add(file);
    if (media.size === 0) return;
    const files = [...media];
    media.clear();
    push({ type: 'changes', files });
  };
  const gathered = (): void => {
    if (timer !== null) clearTimeout(timer);
    if (media.size + sidecarFolders.size >= maxBatch) void flush();
    else timer = setTimeout(() => void flush(), quietMs);
  };
  /**
   * Folders created after the watches were set, with the files the watcher reported in them.
   * The watcher lists a new folder before it watches it, so a file (or folder) created in
   * between is never reported: each new folder is listed again once what was written there
   * has had time to settle, and what the watcher missed is taken from that listing.
   */
  const fresh = new Map<string, { files: Set<string>; folders: Set<string>; changing: Map<string, string> }>();
  /** The new folders `absPath` lies below: one lookup per folder level, however many folders are new. */
  const freshAbove = function* (absPath: string) {
    for (let dir = path.dirname(absPath); ; dir = path.dirname(dir)) {
      const entry = fresh.get(dir);
      if (entry !== undefined) yield entry;
      if (path.dirname(dir) === dir) return;
    }
  };
  const statBatch = createBatchStat({ stat: (file) => fsp.stat(file), statSync });
  let ready = false;
  const relists = new Set<NodeJS.Timeout>();
  const later = (ms: number, fn: () => void): void => {
    const handle = setTimeout(() => {
      relists.delete(handle);
      fn();
    }, ms);
    relists.add(handle);
  };
  // Set when the watch ends: a listing still running then must not add a folder to the
  // closed watcher (chokidar's add() would reopen it, and the process would never exit).
  let closed = false;
  // The folder is listed again as long as a missed file in it is still being written,
  // however long that takes (settleMissed decides).
  const relist = async (dir: string): Promise<void> => {
    const reported = fresh.get(dir);
    if (reported === undefined) return;
    const missed = await missedFiles(
      dir,
      reported,
      skip,
      (folder) => {
        if (closed || options.signal.aborted) return;
        reported.folders.add(folder);
        watcher.add(folder);
      },
      statBatch,
    );
    if (closed || options.signal.aborted) return;
    const { settled, changing } = settleMissed(missed, reported.changing, Date.now(), settleMs);
    // The watcher may have reported one of them while the listing ran.
    for (const file of settled) if (!reported.files.has(file)) onFile(file); // also marks it reported
    reported.changing = changing;
    if (changing.size > 0) later(settleMs, () => void relist(dir));
    else fresh.delete(dir);
  };
  const onFile = (absPath: string): void => {
    for (const reported of freshAbove(absPath)) reported.files.add(absPath);
    if (classifyPath(path.basename(absPath)).kind === 'sidecar') sidecarFolders.add(path.dirname(absPath));
    else media.add(absPath);
    gathered();
  };
  watcher.on('add', onFile);
  watcher.on('change', onFile);
  watcher.on('unlink', (absPath: string) => media.delete(absPath));
  watcher.on('addDir', (absPath: string) => {
    if (!ready) return;
    let inside = false;
    for (const reported of freshAbove(absPath)) {
      reported.folders.add(absPath);
      inside = true;
    }
    if (inside || fresh.has(absPath)) return;
    fresh.set(absPath, { files: new Set(), folders: new Set(), changing: new Map() });
    // Twice the settle time: a file the watcher did see is reported by then (it waits for
    // the file to settle too), so the listing finds only what it missed.
    later(2 * settleMs, () => void relist(absPath));
  });
  watcher.on('ready', () => {
    ready = true;
    push({ type: 'ready', polling });
  });
  watcher.on('error', (error: unknown) => {
    const code = (error as NodeJS.ErrnoException).code;
    // inotify's per-user limit: polling, or a higher limit, is the way out.
    const hint =
      code === 'ENOSPC'
        ? ' (the system limit on watched folders: use --poll, or raise fs.inotify.max_user_watches)'
        : '';
    push({
      type: 'warning',
      code: 'watch_error',
      message: `${error instanceof Error ? error.message : String(error)}${hint}`,
    });
  });

  try {
    for await (const [event] of on(out, 'event', { signal: options.signal })) yield event as WatchEvent;
  } catch (error) {
    if (!options.signal.aborted) throw error;
  } finally {
    closed = true;
    if (timer !== null) clearTimeout(timer);
    for (const handle of relists) clearTimeout(handle);
    await watcher.close();
  }
}
