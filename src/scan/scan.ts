import * as fs from 'node:fs';
import { availableParallelism } from 'node:os';
import path from 'node:path';
import { InterruptedError, UsageError } from '../errors.js';
// Types only: the archive reader (yauzl, tar-stream) loads when a scan meets an archive, so a
// folder's scan starts without it.
import type { ArchiveTotals, ArchiveWalk } from './archive/archive-walk.js';
import { applyLateSidecars } from './archive/late-sidecars.js';
import { createPhotoDetails, withPhotoDetails, type PhotoDetails } from './archive/photo-details.js';
import { indexFolderSidecars, indexNamedSidecars } from './archive/folder-sidecars.js';
import { createSidecarIndex, type MatchedSidecars, type SidecarIndex } from './archive/sidecar-index.js';
import { archiveKindOf, archiveRootOf, rootKindOf, type ArchiveRoot } from './archive/kind.js';
import { heldBytes } from './archive/types.js';
import { openScanCache, type ScanCache } from './cache.js';
import { countMediaFiles } from './count.js';
import { noticePathShower } from './display-path.js';
import { EXTRACTOR_VERSION } from './extract/version.js';
import { createFilePool, type FilePool } from './pool.js';
import type { ExtractFn } from './read-file.js';
import { folderSidecarFingerprint } from './sidecar-print.js';
import { groupMisses, lookUpCache, readGroups, toRecord } from './stages.js';
import type { ScanEvent, ScanRecord } from './types.js';
import type { ReadItem } from './worker.js';
import { walkBatches, type WalkEvent, type WalkFile, type WalkFs } from './walk.js';
import type { OriginClass } from './evidence/origin.js';
import { withOrigins } from './evidence/stage.js';

export interface ScanOptions {
  /** Folders to scan (relative to `cwd`). A missing one is a UsageError. */
  roots: string[];
  /** Glob patterns to leave out (see exclude.ts). */
  exclude?: string[];
  followSymlinks?: boolean;
  /** Open archives met while walking a folder (default false: they are counted as skipped `archive`). */
  archives?: boolean;
  /** Use the scan cache (default true). */
  cache?: boolean;
  /** Where the cache lives: the user's cache folder (`ctx.paths.cache`), or a temp one in tests. */
  cacheDir: string;
  /** Worker threads (default: one per core, at most 4). 0 reads in this thread. */
  workers?: number;
  signal?: AbortSignal;
  /** Base for relative roots and for shown paths (default process.cwd()). */
  cwd?: string;
  /** Called once the walk has listed everything, with the number of media files found (the exact total). */
  onWalkDone?: (files: number) => void;
  /**
   * Asks for the total early: a listing-only count runs ahead of the walk (which goes at the
   * pace of hashing) and reports the media files listed so far, then `done` once it has
   * listed everything. `onWalkDone` still gives the exact number at the end.
   */
  onListed?: (files: number, done: boolean) => void;
  /**
   * Progress in bytes, for a run of archives and files (a folder's bytes are not listed, so a
   * run with folders has none): from the zips' central directories (members' inflated sizes)
   * and the tar streams' file sizes (compressed for .tgz, followed as the stream is read).
   * Called once the total is known, as records come, and every second while a tar stream is read.
   */
  onBytes?: (progress: ByteProgress) => void;
  /**
   * The run's sidecar tree, shared with later scans of the same run (`sync --watch` reads
   * its changed files and parts with it): used in place of a fresh one, so a part read again
   * meets the sidecars of the parts it is not read with; this scan's archives add theirs
   * (a name added again replaces the text held, except that an archive's never replaces a
   * folder's: SidecarIndex.add). Its plain files get the tree only when the first scan's did.
   */
  tree?: SidecarTree;
  /**
   * The run's roots, when this scan reads again some of the run's files: a file named here
   * is looked up in the tree under its path below the run's folder that holds it, as the
   * run's walk listed it (default: this scan's roots).
   */
  treeRoots?: string[];
  /** The origin classes sent (`--include`; default own and unknown): the rest leave with `origin.left_out` set. */
  included?: ReadonlySet<OriginClass>;
  /** Test seams: an extractor (forces in-thread reads) and file-system calls for the walk. */
  extract?: ExtractFn;
  walkFs?: Partial<WalkFs>;
}

/** Bytes done of a run's total (ScanOptions.onBytes). */
export interface ByteProgress {
  done: number;
  /** Never below `done`: what the listings could not foresee (a zip inside a zip) raises it. */
  total: number;
  /** Of `done`, the bytes of records served from the scan cache: done, but not read (no rate). */
  cached: number;
}

/** The sidecars of every archive part (and folders beside them) of one run: one tree. */
export interface SidecarTree {
  index: SidecarIndex;
  details: PhotoDetails;
  /**
   * Whether the run's plain files (not archive members) are read with the tree: decided by
   * the run's first scan (archives given as roots), so a later scan reads an unchanged file
   * with the sidecars the first one did (null until then). Archives found with `--archives`
   * only do not count: they open mid-walk, after most folder files were read.
   */
  plainFiles: boolean | null;
}

/** An empty tree for a run whose later scans share it (ScanOptions.tree). */
export function createSidecarTree(): SidecarTree {
  return { index: createSidecarIndex(), details: createPhotoDetails(), plainFiles: null };
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
/** Bytes of members already read (a tar stream's) that one task holds until a thread takes it. */
const HELD_TASK_BYTES = 8 * 1024 * 1024; // 8 MiB
/** How often a tar stream's bytes are reported between records. */
const TAR_PROGRESS_MS = 1000;

/**
 * Scans folders and streams one `record` per media file (out of order: files are read
 * concurrently), plus `skipped` and `warning` events. A chain of small async generators:
 * walk -> cache lookup -> grouping -> reads on the thread pool (lookups, grouping and
 * reads in stages.ts). Unchanged files come from the scan cache without being read. On abort
 * it stops walking, drops unfinished reads, keeps the cache consistent, then throws
 * InterruptedError after the last event; a consumer that stops early (`return()`) unwinds
 * the chain the same way.
 */
export async function* scanLibrary(options: ScanOptions): AsyncGenerator<ScanEvent> {
  for await (const events of scanLibraryBatches(options)) {
    for (const event of events) {
      if (options.signal?.aborted) break; // what is still queued after Ctrl-C is dropped (it is cached)
      yield event;
    }
    if (options.signal?.aborted) break;
  }
  // Leaving the batches early unwinds them without their own InterruptedError.
  if (options.signal?.aborted) throw new InterruptedError('scan interrupted');
}

/**
 * scanLibrary's events in the batches they are found or read in (up to a few hundred): a
 * consumer that handles events in bulk (sync) pays one async step per batch, not per event.
 */
export async function* scanLibraryBatches(options: ScanOptions): AsyncGenerator<ScanEvent[]> {
  // Every record leaves with its origin, the second file of a pair collapsed (src/scan/evidence).
  yield* withOrigins(readLibraryBatches(options), {
    ...(options.included ? { included: options.included } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
  });
}

async function* readLibraryBatches(options: ScanOptions): AsyncGenerator<ScanEvent[]> {
  const cwd = options.cwd ?? process.cwd();
  const roots = resolveScanRoots(options.roots, cwd);
  const shownPath = noticePathShower({ roots, cwd });
  const stop = new AbortController();
  const onAbort = (): void => stop.abort();
  options.signal?.addEventListener('abort', onAbort, { once: true });
  if (options.signal?.aborted) stop.abort();

  const opened = openCache(options);
  const cache = opened.cache;
  const workers = options.extract ? 0 : (options.workers ?? Math.min(availableParallelism(), MAX_DEFAULT_WORKERS));
  let pool: Promise<FilePool> | null = null;
  // Started on the first cache miss, so a re-scan served from the cache (or a folder without
  // media) never starts a thread, and not awaited there: threads boot and load the extractor
  // while the walk fills the first group.
  const startPool = (): Promise<FilePool> =>
    (pool ??= createFilePool({ workers, ...(options.extract ? { extract: options.extract } : {}) }));
  // The count stops when the walk ends (it then knows the exact number) or the scan stops.
  const countStop = new AbortController();
  const stopCount = (): void => countStop.abort();
  stop.signal.addEventListener('abort', stopCount, { once: true });
  const onListed = options.onListed;
  // Settled once the archive walk has listed the archives named as roots (null: none, or stopped).
  let settleArchives: (totals: ArchiveTotals | null) => void = () => undefined;
  const archiveTotals = new Promise<ArchiveTotals | null>((resolve) => (settleArchives = resolve));
  let tarTicker: NodeJS.Timeout | undefined;
  const counting = onListed
    ? startCount(roots, options, countStop.signal, archiveTotals, (files, done) => {
        if (!countStop.signal.aborted) onListed(files, done);
      })
    : null;

  try {
    if (opened.warning) yield [opened.warning];
    const { files, folders, archives } = await splitRoots(roots);
    // Every archive's sidecars are known before any member is read: the parts are one tree.
    const tree = options.tree ?? createSidecarTree();
    tree.plainFiles ??= archives.length > 0;
    const { index, details } = tree;
    const archiveWalk =
      archives.length > 0
        ? (await archiveReader()).createArchiveWalk({
            archives,
            exclude: options.exclude,
            signal: stop.signal,
            index,
            details,
          })
        : null;
    await archiveWalk?.prepare();
    const totals = archiveWalk?.totals() ?? null;
    settleArchives(totals);
    const bytes =
      options.onBytes && archiveWalk !== null && totals !== null && folders.length === 0
        ? createByteProgress(
            totals.bytes + files.reduce((sum, file) => sum + file.size, 0),
            archiveWalk.tarBytesRead,
            options.onBytes,
          )
        : null;
    // A tar stream's large member is hashed as it passes, with no record for seconds: the bytes go on.
    if (bytes && archives.some((archive) => archive.kind !== 'zip'))
      tarTicker = setInterval(bytes.report, TAR_PROGRESS_MS).unref();
    // Folders beside archives: one tree for sidecars (their own sidecars are in it too).
    const mixed = archiveWalk !== null && folders.length > 0;
    if (mixed) await indexFolderSidecars({ roots: folders, exclude: options.exclude, index, signal: stop.signal });
    if (tree.plainFiles && index.size > 0 && files.length > 0)
      await withNamedTreeSidecars(files, index, options.treeRoots ?? roots);
    const folderWalk = walkBatches({
      roots: folders,
      exclude: options.exclude,
      followSymlinks: options.followSymlinks,
      signal: stop.signal,
      fs: options.walkFs,
    });
    const found: ArchiveWalk[] = [];
    const named = new Set(archives.map((archive) => archive.absPath));
    const walked = options.archives
      ? openFoundArchives(folderWalk, { exclude: options.exclude, signal: stop.signal, index, details, found, named })
      : named.size > 0
        ? withoutNamed(folderWalk, named)
        : folderWalk;
    const listed = showMembers(
      archiveWalk ? concat(archiveWalk.batches(), mixed ? withTreeSidecars(walked, index) : walked) : walked,
      shownPath,
    );
    const looked = lookUpCache(prepend(files, listed), {
      cache,
      shownPath,
      onEnd: (found) => {
        stopCount();
        if (!stop.signal.aborted) options.onWalkDone?.(found);
      },
    });
    const grouped = groupMisses(looked, {
      maxFiles: TASK_FILES,
      maxBytes: TASK_BYTES,
      // A tar stream's members wait in memory for a thread: smaller tasks keep that bounded.
      maxHeldBytes: HELD_TASK_BYTES,
      heldBytes: (file) => (file.member?.task ? heldBytes(file.member.task.source) : 0),
      onFirst: () => void startPool().catch(() => undefined), // a failure surfaces in the first run
    });
    const records = readGroups(grouped, {
      run: async (group, signal) =>
        (await startPool()).run(
          group.map((file): ReadItem => file.member?.task ?? file.treeTask ?? file.absPath),
          signal,
        ),
      limit: Math.max(workers, 1) * 2, // one task running and one waiting per thread
      signal: stop.signal,
      finish: (file, result) => {
        const record = toRecord(file, result, false);
        // A tar member is never looked up (a stream has no directory to key it by): nor written.
        if (result.cacheable && !file.member?.uncached) cache?.put(file, record);
        return { type: 'record', record };
      },
    });
    const held: ScanRecord[] = [];
    for await (const events of records) {
      if (stop.signal.aborted) break; // what is still queued after Ctrl-C is dropped (it is cached)
      bytes?.add(events);
      const walks = archiveWalk ? [archiveWalk, ...found] : found;
      yield walks.length > 0 ? withDetails(holdLate(events, walks, held), details) : events;
    }
    if (held.length > 0 && !stop.signal.aborted) yield withDetails(await applyLateSidecars(held, index.find), details);
  } finally {
    stop.abort();
    settleArchives(null); // no-op once settled; the count must not wait on a scan that failed
    clearInterval(tarTicker);
    options.signal?.removeEventListener('abort', onAbort);
    await counting;
    try {
      // The pool first: reads still in flight settle (and are cached) before the cache closes.
      const started = await (pool as Promise<FilePool> | null)?.catch(() => null);
      await started?.close();
    } finally {
      cache?.close();
    }
  }
  if (options.signal?.aborted) throw new InterruptedError('scan interrupted');
}

/**
 * Bytes done for `onBytes`: a zip member's or a named file's record counts its size (cached
 * ones too, apart: done is done, but nothing was read), a tar stream counts how far its file
 * has been read.
 */
function createByteProgress(total: number, tarBytesRead: () => number, onBytes: (progress: ByteProgress) => void) {
  let records = 0;
  let cached = 0;
  const report = (): void => {
    const done = records + tarBytesRead();
    onBytes({ done, total: Math.max(total, done), cached });
  };
  report();
  return {
    add(events: ScanEvent[]): void {
      for (const event of events) {
        if (event.type !== 'record') continue;
        const archive = event.record.archive;
        if (archive !== undefined && archiveKindOf(archive) !== 'zip') continue; // a tar stream: by its file
        records += event.record.size;
        if (event.record.cached) cached += event.record.size;
      }
      report();
    },
    report,
  };
}

/** The scan cache, or a warning when it cannot be used (every file is then read). */
function openCache(options: ScanOptions): { cache: ScanCache | null; warning: ScanEvent | null } {
  if (options.cache === false) return { cache: null, warning: null };
  const dir = options.cacheDir;
  try {
    return { cache: openScanCache({ dir, extractorVersion: EXTRACTOR_VERSION }), warning: null };
  } catch (error) {
    return {
      cache: null,
      warning: {
        type: 'warning',
        code: 'cache_unavailable',
        path: dir,
        message: `scan cache not used: ${String(error)}`,
      },
    };
  }
}

/**
 * The listing-only count, reported through `onListed`; never fails the scan. Archives are
 * counted from the listings the archive walk reads anyway (`archives`, settled once it has
 * read them): a zip's central directory is read once per run.
 */
async function startCount(
  roots: string[],
  options: ScanOptions,
  signal: AbortSignal,
  archives: Promise<ArchiveTotals | null>,
  onListed: (files: number, done: boolean) => void,
): Promise<void> {
  try {
    let files = 0;
    let fromArchives = 0;
    let inFolders = 0;
    // Archives met inside folders are opened as they are met: the total stays open until then.
    let open = options.archives === true;
    const folders: string[] = [];
    for (const root of roots) {
      const kind = rootKindOf(root, await fs.promises.stat(root));
      if (kind === 'folder') folders.push(root);
      else if (kind === 'file') files += 1;
    }
    const report = (): void => onListed(files + fromArchives + inFolders, false);
    const counted = archives.then((totals) => {
      if (totals === null) return;
      fromArchives = totals.files;
      open ||= !totals.final;
      report();
    });
    if (files > 0) report();
    inFolders = await countMediaFiles(
      { roots: folders, exclude: options.exclude, followSymlinks: options.followSymlinks, signal, fs: options.walkFs },
      (listed) => {
        inFolders = listed;
        report();
      },
    );
    await counted;
    if (!signal.aborted) onListed(files + fromArchives + inFolders, !open);
  } catch {
    // Only a guide for progress: the walk reports what it cannot read.
  }
}

/**
 * Files named on the command line are read as they are (whatever their name), except
 * archives (`.zip`, `.tar`, `.tgz`/`.tar.gz`), whose members are read in place; folders are walked.
 */
async function splitRoots(roots: string[]): Promise<{ files: WalkFile[]; folders: string[]; archives: ArchiveRoot[] }> {
  const files: WalkFile[] = [];
  const folders: string[] = [];
  const archives: ArchiveRoot[] = [];
  for (const root of roots) {
    const stats = await fs.promises.stat(root);
    const kind = rootKindOf(root, stats);
    if (kind === 'folder') {
      folders.push(root);
      continue;
    }
    if (kind === 'archive') {
      // Its size and time go with it: the archive walk does not stat it again.
      archives.push({ ...archiveRootOf(root)!, stat: { size: stats.size, mtimeMs: stats.mtimeMs } });
      continue;
    }
    files.push({
      type: 'file',
      path: path.basename(root),
      absPath: root,
      size: stats.size,
      mtimeMs: stats.mtimeMs,
      ino: stats.ino,
      sidecarFingerprint: await folderSidecarFingerprint(path.dirname(root)),
    });
  }
  return { files, folders, archives };
}

/** The archives' members under the paths the user sees (`takeout-001.zip!/Takeout/…`). */
async function* showMembers(
  batches: AsyncIterable<WalkEvent[]>,
  shownPath: (absPath: string) => string,
): AsyncGenerator<WalkEvent[]> {
  for await (const batch of batches) {
    for (const event of batch) if (event.type === 'file' && event.member) event.path = shownPath(event.absPath);
    yield batch;
  }
}

/**
 * A folder's files, when archives share the run: each is read with the sidecars the run's
 * tree matches to its path (its own folder's first, by the folder reader's rules; else an
 * archive part's or another folder's), and the cache keys on them.
 */
async function* withTreeSidecars(walked: AsyncIterable<WalkEvent[]>, index: SidecarIndex): AsyncGenerator<WalkEvent[]> {
  for await (const batch of walked) {
    for (const event of batch)
      if (event.type === 'file' && !event.member)
        useTreeSidecars(event, index.find(event.path, path.dirname(event.absPath)));
    yield batch;
  }
}

/**
 * Files named as roots, when the run's tree holds sidecars (a watch's changed files beside
 * archives): each is looked up under the key the run's walk gave it (its path below the run's
 * folder that holds it; its name when it is a root itself), its own folder's sidecars first
 * read into the tree as they are now.
 */
async function withNamedTreeSidecars(files: WalkFile[], index: SidecarIndex, runRoots: string[]): Promise<void> {
  const keyed = files.map((file) => ({ file, absPath: file.absPath, key: treeKey(file.absPath, runRoots) }));
  await indexNamedSidecars({ files: keyed, index });
  for (const { file, key } of keyed) useTreeSidecars(file, index.find(key, path.dirname(file.absPath)));
}

/** A file's key in the run's tree: its path below the run's folder that holds it, as the walk lists it. */
export function treeKey(absPath: string, runRoots: readonly string[]): string {
  const root = runRoots.find((outer) => isInside(outer, absPath));
  return root === undefined ? path.basename(absPath) : path.relative(root, absPath).split(path.sep).join('/');
}

/** Reads a folder's file with the sidecars the tree matched to it (none: its folder's, as usual). */
function useTreeSidecars(file: WalkFile, matched: MatchedSidecars): void {
  if (matched.print === '') return;
  file.sidecarFingerprint = `${file.sidecarFingerprint}|${matched.print}`;
  // Read by the folder reader, with these sidecars in place of its folder's.
  file.treeTask = { absPath: file.absPath, sidecars: { takeout: matched.takeout, xmp: matched.xmp } };
}

async function* concat<T>(...sources: AsyncIterable<T>[]): AsyncGenerator<T> {
  for (const source of sources) yield* source;
}

/** Records of tar members whose sidecar may come later are held back (applyLateSidecars gives them it at the end). */
function holdLate(events: ScanEvent[], walks: ArchiveWalk[], held: ScanRecord[]): ScanEvent[] {
  // A run of zips (or tars whose sidecars came first) holds nothing: no pass over the batch.
  const holding = walks.filter((walk) => walk.hasLate());
  if (holding.length === 0) return events;
  const before = held.length;
  const kept: ScanEvent[] = [];
  for (const event of events) {
    if (
      event.type === 'record' &&
      event.record.archive !== undefined &&
      holding.some((walk) => walk.isLate(event.record.absPath))
    )
      held.push(event.record);
    else kept.push(event);
  }
  return held.length === before ? events : kept;
}

/** iCloud's Photo Details CSV for members with no capture instant of their own (photo-details.ts). */
function withDetails(events: ScanEvent[], details: PhotoDetails): ScanEvent[] {
  if (details.size === 0) return events;
  return events.map((event) =>
    event.type === 'record' && event.record.archive !== undefined
      ? { type: 'record', record: withPhotoDetails(event.record, details) }
      : event,
  );
}

/** The walk's notices of archives also named as arguments: those are read, not skipped. */
async function* withoutNamed(walked: AsyncIterable<WalkEvent[]>, named: Set<string>): AsyncGenerator<WalkEvent[]> {
  for await (const batch of walked)
    yield batch.filter(
      (event) => !(event.type === 'skipped' && event.reason === 'archive' && named.has(event.absPath)),
    );
}

/**
 * With `--archives`: an archive the folder walk met (its skip notice) is opened in place of
 * the notice, its sidecars joining the run's tree. Without the flag the notice stays and
 * the summary counts it.
 */
async function* openFoundArchives(
  walked: AsyncIterable<WalkEvent[]>,
  options: {
    exclude?: string[];
    signal: AbortSignal;
    index: SidecarIndex;
    details: PhotoDetails;
    found: ArchiveWalk[];
    named: Set<string>;
  },
): AsyncGenerator<WalkEvent[]> {
  for await (const batch of walked) {
    // One also named as an argument is read there, once.
    const archives = batch
      .filter((event) => event.type === 'skipped' && event.reason === 'archive' && !options.named.has(event.absPath))
      .map((event) => archiveRootOf(event.absPath)!);
    const rest = batch.filter((event) => !(event.type === 'skipped' && event.reason === 'archive'));
    if (archives.length === 0) {
      if (rest.length > 0) yield rest;
      continue;
    }
    yield rest;
    const walk = (await archiveReader()).createArchiveWalk({
      archives,
      exclude: options.exclude,
      signal: options.signal,
      index: options.index,
      details: options.details,
    });
    options.found.push(walk);
    await walk.prepare();
    yield* walk.batches();
  }
}

/** The archive reader, loaded once, when the first archive is met. */
let archiveModule: Promise<typeof import('./archive/archive-walk.js')> | null = null;
const archiveReader = (): Promise<typeof import('./archive/archive-walk.js')> =>
  (archiveModule ??= import('./archive/archive-walk.js'));

/** The named files as one batch, then the walk's batches. */
async function* prepend(files: WalkFile[], walked: AsyncIterable<WalkEvent[]>): AsyncGenerator<WalkEvent[]> {
  if (files.length > 0) yield files;
  yield* walked;
}

/**
 * Absolute, existing folders or files (UsageError otherwise); a folder or file inside another
 * given folder is dropped, so each file is read once. The CLI calls it first to fail before
 * any work. A file is read whatever its name (support's "why didn't this photo match?").
 */
export function resolveScanRoots(roots: string[], cwd: string): string[] {
  if (roots.length === 0) throw new UsageError('no folder to scan');
  const resolved: string[] = [];
  const files = new Set<string>();
  for (const root of roots) {
    const absolute = path.resolve(cwd, root);
    let stats: fs.Stats;
    try {
      stats = fs.statSync(absolute);
    } catch {
      throw new UsageError(`no such folder or file: ${root}`);
    }
    if (!stats.isDirectory() && !stats.isFile()) throw new UsageError(`not a folder or a file: ${root}`);
    if (stats.isFile()) files.add(absolute);
    resolved.push(absolute);
  }
  const sorted = [...new Set(resolved)].sort();
  // An archive named inside a given folder stays: the walk only counts archives (without --archives).
  const isArchive = (root: string): boolean => archiveKindOf(root) !== null && files.has(root);
  return sorted.filter((root, i) => isArchive(root) || !sorted.slice(0, i).some((outer) => isInside(outer, root)));
}

/** Whether `inner` lies below `outer` (also when `outer` is the file-system root). */
function isInside(outer: string, inner: string): boolean {
  const relative = path.relative(outer, inner);
  return relative !== '' && relative.split(path.sep)[0] !== '..' && !path.isAbsolute(relative);
}
