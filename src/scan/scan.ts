import { availableParallelism } from 'node:os';
import { InterruptedError } from '../errors.js';
import { applyLateSidecars } from './archive/late-sidecars.js';
import { heldBytes } from './archive/types.js';
import { openScanCache, type ScanCache } from './cache.js';
import { EXTRACTOR_VERSION } from './extract/version.js';
import { createLazyPool } from './pool.js';
import { createByteProgress, startCount, type ByteProgress, type CountOptions } from './progress.js';
import { createExcludeMatcher, type ExcludeMatcher } from './classify.js';
import { displayPath, noticePathShower, partGapsOf, partGapWarnings, resolveScanRoots, splitRoots } from './roots.js';
import { openFolderSource, readFolderDetails, type WalkFs } from './sources/folder.js';
import { archiveKindOf } from './sources/formats.js';
import { createSourceRun, openArchives } from './sources/open.js';
import type { ArchiveSource, SourceRun, SourceTotals, WalkEvent, WalkFile } from './sources/source.js';
import { groupMisses, lookUpCache, readGroups, toRecord } from './stages.js';
import {
  createSidecarTree,
  holdLate,
  withDetails,
  withNamedTreeSidecars,
  withoutDeleted,
  type SidecarTree,
} from './tree.js';
import type { ScanEvent, ScanRecord } from './types.js';
import type { ItemReader, ReadItem } from './worker.js';
import type { OriginClass } from './evidence/origin.js';
import { createEvidenceMemory, withOrigins, type EvidenceMemory } from './evidence/stage.js';

export type { ByteProgress } from './progress.js';
export { resolveScanRoots } from './roots.js';
export { createSidecarTree, treeKey, type SidecarTree } from './tree.js';

export interface ScanOptions {
  /** Folders to scan (relative to `cwd`). A missing one is a UsageError. */
  roots: string[];
  /** Glob patterns to leave out (classify.ts, createExcludeMatcher). */
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
  /**
   * The run's pairing memory, shared with its later scans (`sync --watch`): a Live Photo's video
   * or an edited copy read later goes with the still or original an earlier scan read.
   */
  evidence?: EvidenceMemory;
  /**
   * Test seams: a reader that reads every file in this thread (worker.ts's createItemReader
   * over another extractor; `workers: 0` reads in this thread with the real one), and
   * file-system calls for the walk.
   */
  reader?: ItemReader;
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
/** Bytes of members already read (a tar stream's) that one task holds until a thread takes it. */
const HELD_TASK_BYTES = 8 * 1024 * 1024; // 8 MiB
/** How often a tar stream's bytes are reported between records. */
const TAR_PROGRESS_MS = 1000;

/**
 * Scans folders and streams one `record` per media file (out of order: files are read
 * concurrently), plus `skipped` and `warning` events. A chain of small async generators:
 * sources (folders, zips, tars: sources/) -> cache lookup -> grouping -> reads on the thread
 * pool (lookups, grouping and reads in stages.ts). Unchanged files come from the scan cache
 * without being read. On abort it stops walking, drops unfinished reads, keeps the cache
 * consistent, then throws InterruptedError after the last event; a consumer that stops early
 * (`return()`) unwinds the chain the same way.
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
  const cwd = options.cwd ?? process.cwd();
  const base = { roots: resolveScanRoots(options.roots, cwd), cwd };
  // Every record leaves with its origin, the second file of a pair collapsed (src/scan/evidence).
  yield* withOrigins(readLibraryBatches(options, base), {
    ...(options.included ? { included: options.included } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
    // The run's memory, or this scan's own, naming a pair's partner as the scan shows paths.
    memory: options.evidence ?? createEvidenceMemory({ shown: (absPath) => displayPath(absPath, base) }),
  });
}

async function* readLibraryBatches(
  options: ScanOptions,
  { roots, cwd }: { roots: string[]; cwd: string },
): AsyncGenerator<ScanEvent[]> {
  const shownPath = noticePathShower({ roots, cwd });
  // `--exclude`, compiled once (before anything is opened: a pattern picomatch refuses fails
  // the scan here): the walk, the count, the archives and the tree's folders share it.
  const excluded = createExcludeMatcher(options.exclude ?? []);
  const stop = new AbortController();
  const onAbort = (): void => stop.abort();
  options.signal?.addEventListener('abort', onAbort, { once: true });
  if (options.signal?.aborted) stop.abort();
  const opened = openCache(options);
  const reads = createReads(options);
  const count = createCount(
    roots,
    { excluded, followSymlinks: options.followSymlinks, archives: options.archives, walkFs: options.walkFs },
    stop.signal,
    options.onListed,
  );
  let ticker: NodeJS.Timeout | undefined;
  try {
    if (opened.warning) yield [opened.warning];
    // An export whose numbered parts were not all given: named first (sync decides on it).
    const gaps = partGapWarnings(await partGapsOf(roots, { archives: options.archives === true }));
    if (gaps.length > 0) yield gaps;
    const sources = await openSources(roots, options, { excluded, signal: stop.signal });
    if (sources.notes.length > 0)
      yield sources.notes.map(
        (note): ScanEvent => (note.type === 'warning' ? { ...note, path: shownPath(note.path) } : note),
      );
    count.settle(sources.archives?.totals() ?? null);
    const bytes = byteProgress(options, sources);
    // A tar stream's large member is hashed as it passes, with no record for seconds: the bytes go on.
    if (bytes && sources.streamed.size > 0) ticker = setInterval(bytes.report, TAR_PROGRESS_MS).unref();
    const walked = listed(prepend(sources.files, sources.batches()), shownPath, (found) => {
      count.stop();
      if (!stop.signal.aborted) options.onWalkDone?.(found);
    });
    const looked = lookUpCache(walked, { cache: opened.cache, shownPath });
    const held: ScanRecord[] = [];
    const { late } = sources.run;
    const { details } = sources.tree;
    for await (const events of reads.read(looked, opened.cache, stop.signal)) {
      if (stop.signal.aborted) break; // what is still queued after Ctrl-C is dropped (it is cached)
      bytes?.add(events);
      yield sources.archived || details.size > 0 ? withDetails(holdLate(events, late, held), details) : events;
    }
    if (held.length > 0 && !stop.signal.aborted)
      yield withDetails(await applyLateSidecars(held, sources.tree.index.find), details);
    // Sidecars no file of the run claimed: left without their media (a part not given?).
    if (sources.archived && !stop.signal.aborted) {
      const orphans = sources.tree.index.unclaimed();
      if (orphans.length > 0) yield orphans.map(orphanWarning);
    }
  } finally {
    stop.abort();
    count.settle(null); // no-op once settled; the count must not wait on a scan that failed
    clearInterval(ticker);
    options.signal?.removeEventListener('abort', onAbort);
    await count.done;
    try {
      await reads.close(); // reads still in flight settle (and are cached) before the cache closes
    } finally {
      opened.cache?.close();
    }
  }
  if (options.signal?.aborted) throw new InterruptedError('scan interrupted');
}

/** A scan's sources, prepared: named files, folders, archives (named, and found with `--archives`). */
interface OpenedSources {
  files: WalkFile[];
  /** The named archives as one source (null: none). */
  archives: (ArchiveSource & { bytesRead(): number }) | null;
  /** Whether any archive may be read (named, or found with `--archives`): records get the tree's late sidecars and details. */
  archived: boolean;
  /** The named archives read as streams (their progress is by bytes read). */
  streamed: Set<string>;
  folders: string[];
  tree: SidecarTree;
  run: SourceRun;
  /** Warnings met while preparing (a folder's Photo Details CSV that cannot be used), by absolute path. */
  notes: ScanEvent[];
  batches(): AsyncIterable<WalkEvent[]>;
}

/**
 * Where sources are chosen: a root's kind (formats.ts) says which reads it. Every archive's
 * sidecars are known before any member is read (the parts are one tree); folders beside
 * archives join that tree.
 */
async function openSources(
  roots: string[],
  options: ScanOptions,
  { excluded, signal }: { excluded: ExcludeMatcher | null; signal: AbortSignal },
): Promise<OpenedSources> {
  const { files, folders, archives: named } = await splitRoots(roots);
  const tree = options.tree ?? createSidecarTree();
  tree.plainFiles ??= named.length > 0;
  const run = createSourceRun({ excluded, signal, index: tree.index, details: tree.details });
  const archives = named.length > 0 ? await openArchives(named, run) : null;
  await archives?.prepare();
  const folder = openFolderSource({
    roots: folders,
    excluded,
    followSymlinks: options.followSymlinks,
    signal,
    fs: options.walkFs,
    tree: archives !== null && folders.length > 0 ? tree.index : null,
    openFound: options.archives ? (found) => openArchives(found, run) : null,
    named: new Set(named.map((root) => root.absPath)),
  });
  // Folders beside archives: one tree for sidecars (their own sidecars are in it too).
  await folder.prepare();
  // An iCloud export unzipped into folders: its CSVs before its files, as a zip's.
  const problems = folders.length > 0 ? await readFolderDetails({ roots: folders, details: tree.details, signal }) : [];
  const notes = problems.map(
    (problem): ScanEvent => ({
      type: 'warning',
      code: 'photo_details_unusable',
      path: problem.absPath,
      message: `Photo Details not used: ${problem.message}; its photos keep only their own dates`,
    }),
  );
  if (tree.plainFiles && tree.index.size > 0 && files.length > 0)
    await withNamedTreeSidecars(files, tree.index, options.treeRoots ?? roots);
  return {
    files,
    archives,
    archived: archives !== null || options.archives === true,
    streamed: new Set(named.filter((root) => archiveKindOf(root.absPath) !== 'zip').map((root) => root.absPath)),
    folders,
    tree,
    run,
    notes,
    async *batches() {
      if (archives !== null) yield* archives.batches();
      yield* withoutDeleted(folder.batches(), tree.details);
    },
  };
}

/** Byte progress, for a run of archives and files only (a folder's bytes are not listed). */
function byteProgress(options: ScanOptions, sources: OpenedSources) {
  const totals = sources.archives?.totals() ?? null;
  if (!options.onBytes || sources.archives === null || totals === null || sources.folders.length > 0) return null;
  const archives = sources.archives;
  const named = sources.files.reduce((sum, file) => sum + file.size, 0);
  return createByteProgress(
    totals.bytes + named,
    () => archives.bytesRead(),
    (archive) => sources.streamed.has(archive),
    options.onBytes,
  );
}

/**
 * The listing-only count beside the scan (`onListed`): it stops when the walk ends (the exact
 * number is then known) or the scan stops, and counts archives from their sources' listings.
 */
function createCount(roots: string[], options: CountOptions, signal: AbortSignal, onListed: ScanOptions['onListed']) {
  const countStop = new AbortController();
  const stopCount = (): void => countStop.abort();
  signal.addEventListener('abort', stopCount, { once: true });
  // Settled once the named archives are listed (null: none, or stopped).
  let settle: (totals: SourceTotals | null) => void = () => undefined;
  const archives = new Promise<SourceTotals | null>((resolve) => (settle = resolve));
  const done = onListed
    ? startCount(roots, options, countStop.signal, archives, (files, final) => {
        if (!countStop.signal.aborted) onListed(files, final);
      })
    : Promise.resolve();
  return { settle: (totals: SourceTotals | null) => settle(totals), stop: stopCount, done };
}

/**
 * Misses grouped into tasks and read on the pool, started on the first miss (a re-scan served
 * from the cache, or a folder without media, never starts a thread) and not awaited there:
 * threads boot and load the extractor while the walk fills the first group.
 */
function createReads(options: ScanOptions) {
  const workers = options.reader ? 0 : (options.workers ?? Math.min(availableParallelism(), MAX_DEFAULT_WORKERS));
  const pool = createLazyPool({ workers, ...(options.reader ? { reader: options.reader } : {}) });
  return {
    read(looked: ReturnType<typeof lookUpCache>, cache: ScanCache | null, signal: AbortSignal) {
      const grouped = groupMisses(looked, {
        maxFiles: TASK_FILES,
        maxBytes: TASK_BYTES,
        // A tar stream's members wait in memory for a thread: smaller tasks keep that bounded.
        maxHeldBytes: HELD_TASK_BYTES,
        heldBytes: (file) => (file.member?.task ? heldBytes(file.member.task.source) : 0),
        onFirst: pool.start,
      });
      return readGroups(grouped, {
        run: (group, runSignal) =>
          pool.run(
            group.map((file): ReadItem => file.member?.task ?? file.treeTask ?? file.absPath),
            runSignal,
          ),
        limit: pool.slots,
        signal,
        finish: (file, result) => {
          const record = toRecord(file, result, false);
          // A tar member is never looked up (a stream has no directory to key it by): nor written.
          if (result.cacheable && !file.member?.uncached) cache?.put(file, record);
          return { type: 'record', record };
        },
      });
    },
    close: pool.close,
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
 * The sources' batches, the archives' members under the paths the user sees
 * (`takeout-001.zip!/Takeout/…`); `onEnd` gets the number of media files once all is listed.
 */
async function* listed(
  batches: AsyncIterable<WalkEvent[]>,
  shownPath: (absPath: string) => string,
  onEnd: (files: number) => void,
): AsyncGenerator<WalkEvent[]> {
  let files = 0;
  for await (const batch of batches) {
    for (const event of batch) {
      if (event.type !== 'file') continue;
      files += 1;
      if (event.member) event.path = shownPath(event.absPath);
    }
    yield batch;
  }
  onEnd(files);
}

/** The named files as one batch, then the sources' batches. */
async function* prepend(files: WalkFile[], walked: AsyncIterable<WalkEvent[]>): AsyncGenerator<WalkEvent[]> {
  if (files.length > 0) yield files;
  yield* walked;
}

/** A sidecar no file of the run claimed, as a warning that fails nothing (its media may be in a part not given). */
function orphanWarning(member: string): ScanEvent {
  return {
    type: 'warning',
    code: 'sidecar_without_media',
    path: member,
    message: 'no file of this run has a name this sidecar belongs to: its media is not among what was given',
  };
}
