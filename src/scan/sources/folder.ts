/**
 * Folders as a source: the walk (depth-first, junk and `--exclude` left out, media stat'ed),
 * its file-system calls (shared with the listing-only count, progress.ts), and what a folder
 * adds before it is walked (an iCloud export unzipped into folders: its Photo Details CSVs).
 */
import * as nodeFs from 'node:fs';
import { createReadStream, type Dirent, type Stats } from 'node:fs';
import * as fsp from 'node:fs/promises';
import path from 'node:path';
import { describeFsError } from '../../util/fs-error.js';
import { isPhotoDetailsName, type PhotoDetails } from '../archive/photo-details.js';
import type { SidecarIndex } from '../archive/sidecar-index.js';
import { classifyName, entryKind, skipReasonOf, type ExcludeMatcher } from '../classify.js';
import { icloudFolderOf } from '../export-parts.js';
import { sidecarFingerprint } from '../sidecar-print.js';
import { createBatchStat, type StatOutcome } from '../stat-batch.js';
import { indexFolderSidecars, useTreeSidecars } from '../tree.js';
import { archiveRootOf, type ArchiveRoot } from './formats.js';
import type { ArchiveSource, ScanSource, WalkEvent } from './source.js';

export type { WalkEvent, WalkFile } from './source.js';

export interface FolderSourceOptions {
  /** Absolute folders, walked one after the other. */
  roots: string[];
  excluded: ExcludeMatcher | null;
  followSymlinks?: boolean;
  signal: AbortSignal;
  fs?: Partial<WalkFs>;
  /**
   * The run's tree, when archives share the run: the folders' sidecars join it (prepare), and
   * each file is read with the sidecars it matches there (its own folder's first).
   */
  tree: SidecarIndex | null;
  /** With `--archives`: opens archives the walk met, in place of their skip notices. */
  openFound: ((roots: ArchiveRoot[]) => Promise<ArchiveSource>) | null;
  /** Archives named as roots: read there, so neither opened nor counted as skipped here. */
  named: ReadonlySet<string>;
}

/**
 * Folders as a source: the walk (walkBatches), with what the run adds: the tree's sidecars
 * when archives share the run, the archives it meets opened with `--archives` (else counted
 * as skipped). Not listed ahead: no totals (the count, countMediaFiles, runs beside the scan).
 */
export function openFolderSource(options: FolderSourceOptions): ScanSource {
  return {
    async prepare() {
      if (options.tree !== null && options.roots.length > 0)
        await indexFolderSidecars({
          roots: options.roots,
          excluded: options.excluded,
          index: options.tree,
          signal: options.signal,
        });
    },
    totals: () => null,
    batches() {
      const walked = walkBatches({
        roots: options.roots,
        excluded: options.excluded,
        followSymlinks: options.followSymlinks,
        signal: options.signal,
        fs: options.fs,
      });
      const read = options.tree === null ? walked : withTreeSidecars(walked, options.tree);
      return options.openFound !== null
        ? openFoundArchives(read, options.openFound, options.named)
        : options.named.size > 0
          ? withoutNamed(read, options.named)
          : read;
    },
  };
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

const isArchiveNotice = (event: WalkEvent): boolean => event.type === 'skipped' && event.reason === 'archive';

/** The walk's notices of archives also named as arguments: those are read, not skipped. */
async function* withoutNamed(
  walked: AsyncIterable<WalkEvent[]>,
  named: ReadonlySet<string>,
): AsyncGenerator<WalkEvent[]> {
  for await (const batch of walked)
    yield batch.filter((event) => !(isArchiveNotice(event) && named.has(event.absPath)));
}

/**
 * With `--archives`: an archive the folder walk met (its skip notice) is opened in place of
 * the notice, its sidecars joining the run's tree. Without the flag the notice stays and
 * the summary counts it.
 */
async function* openFoundArchives(
  walked: AsyncIterable<WalkEvent[]>,
  open: (roots: ArchiveRoot[]) => Promise<ArchiveSource>,
  named: ReadonlySet<string>,
): AsyncGenerator<WalkEvent[]> {
  for await (const batch of walked) {
    // One also named as an argument is read there, once.
    const archives = batch
      .filter((event) => isArchiveNotice(event) && !named.has(event.absPath))
      .map((event) => archiveRootOf(event.absPath)!);
    const rest = batch.filter((event) => !isArchiveNotice(event));
    if (archives.length === 0) {
      if (rest.length > 0) yield rest;
      continue;
    }
    yield rest;
    const found = await open(archives);
    await found.prepare();
    yield* found.batches();
  }
}

/** An open folder read entry by entry (what `fs.promises.opendir` gives). */
export interface FolderHandle {
  read(): Promise<Dirent | null>;
  close(): Promise<void>;
}

/** The file-system calls the walk makes; tests pass failing or in-memory ones. */
export interface WalkFs {
  opendir(dir: string, options: { bufferSize: number }): Promise<FolderHandle>;
  stat(file: string): Promise<Stats>;
  /** Used while stats are fast (stat-batch.ts); absent when a test passes its own `stat`. */
  statSync?: (file: string) => Stats;
}

export interface WalkOptions {
  /** Absolute folders, walked one after the other. */
  roots: string[];
  /** `--exclude` (classify.ts, createExcludeMatcher), on paths relative to each root. */
  excluded?: ExcludeMatcher | null;
  followSymlinks?: boolean;
  signal?: AbortSignal;
  fs?: Partial<WalkFs>;
}

/** Entries opendir reads per system call. */
const READ_AHEAD = 256;
/**
 * A folder of up to this many entries is listed once and held (names only) while its
 * sidecars are fingerprinted; a larger one is listed twice, sidecars first, so a flat
 * 200,000-file folder never sits in memory.
 */
const HELD_ENTRIES = 4096;
/** Files examined (stat) at once, and the most events handed on in one batch. */
const BATCH = 64;

interface Folder {
  abs: string;
  /** Relative to the root, POSIX separators ('' for the root). */
  rel: string;
}

/** An entry whose stat decides what it is. */
interface Examined extends Folder {
  link: boolean;
}

interface WalkContext {
  fs: WalkFs;
  excluded: ExcludeMatcher | null;
  follow: boolean;
  signal: AbortSignal | undefined;
  /** dev:ino of every folder walked, when following symlinks (the loop guard). */
  visited: Set<string>;
  statBatch: (files: readonly string[]) => Promise<StatOutcome[]>;
}

/** The file-system calls of a real walk, with test overrides. */
export function walkFs(overrides: Partial<WalkFs> = {}): WalkFs {
  return {
    opendir: overrides.opendir ?? ((dir, options) => fsp.opendir(dir, options)),
    stat: overrides.stat ?? ((file) => fsp.stat(file)),
    ...(overrides.statSync
      ? { statSync: overrides.statSync }
      : overrides.stat
        ? {}
        : { statSync: (file: string) => nodeFs.statSync(file) }),
  };
}

/**
 * Walks the roots depth-first and yields media files (with their stats), skip notices and
 * warnings, in batches of at most about 64. Nothing is listed or examined until the consumer
 * asks for the next batch (backpressure per batch of entries), so a million-file tree, or one
 * huge folder, never sits in memory. Junk and `--exclude` are pure predicates on the names;
 * a skipped folder is never opened and counts once.
 */
async function* walkBatches(options: WalkOptions): AsyncGenerator<WalkEvent[]> {
  const fs = walkFs(options.fs);
  const ctx: WalkContext = {
    fs,
    statBatch: createBatchStat(fs),
    excluded: options.excluded ?? null,
    follow: options.followSymlinks ?? false,
    signal: options.signal,
    visited: new Set(),
  };
  for (const root of options.roots) {
    const stack: Folder[] = [{ abs: root, rel: '' }];
    while (stack.length > 0) {
      if (ctx.signal?.aborted) return;
      yield* folderBatches(stack.pop()!, ctx, stack);
    }
  }
}

/** The walk one event at a time (see walkBatches). */
export async function* walk(options: WalkOptions): AsyncGenerator<WalkEvent> {
  for await (const batch of walkBatches(options)) {
    for (const event of batch) yield event;
  }
}

const joinRel = (rel: string, name: string): string => (rel === '' ? name : `${rel}/${name}`);

function warning(code: 'unreadable_folder' | 'unreadable_file', absPath: string, error: unknown): WalkEvent {
  return { type: 'warning', code, absPath, message: describeFsError(error as NodeJS.ErrnoException) };
}

/** One folder's events; its subfolders go on `stack`. */
async function* folderBatches(folder: Folder, ctx: WalkContext, stack: Folder[]): AsyncGenerator<WalkEvent[]> {
  if (ctx.follow) {
    // Through symlinks one folder may be reached twice, or forever: each is walked once.
    let stats: Stats;
    try {
      stats = await ctx.fs.stat(folder.abs);
    } catch (error) {
      yield [warning('unreadable_folder', folder.abs, error)];
      return;
    }
    const key = `${stats.dev}:${stats.ino}`;
    if (ctx.visited.has(key)) {
      yield [{ type: 'skipped', reason: 'symlink_loop', absPath: folder.abs }];
      return;
    }
    ctx.visited.add(key);
  }
  let handle: FolderHandle;
  try {
    handle = await ctx.fs.opendir(folder.abs, { bufferSize: READ_AHEAD });
  } catch (error) {
    yield [warning('unreadable_folder', folder.abs, error)];
    return;
  }
  const subfolders: Folder[] = [];
  try {
    const held: Dirent[] = [];
    let rest = true;
    while (held.length < HELD_ENTRIES) {
      const entry = await handle.read();
      if (entry === null) {
        rest = false;
        break;
      }
      held.push(entry);
    }
    const print = rest
      ? await largeFolderPrint(folder.abs, ctx)
      : await sidecarFingerprint(
          folder.abs,
          held.filter(isSidecarEntry).map((entry) => entry.name),
          ctx.fs.stat,
        );
    const entries = async function* (): AsyncGenerator<Dirent> {
      for (const entry of held) yield entry;
      held.length = 0;
      for (let entry = rest ? await handle.read() : null; entry !== null; entry = await handle.read()) yield entry;
    };
    let events: WalkEvent[] = [];
    let examine: Examined[] = [];
    const examineAll = async (): Promise<void> => {
      const outcomes = await ctx.statBatch(examine.map((entry) => entry.abs));
      examine.forEach((entry, i) => {
        const event = examined(entry, outcomes[i]!, print, ctx.follow, subfolders);
        if (event) events.push(event);
      });
      examine = [];
    };
    for await (const entry of entries()) {
      const rel = joinRel(folder.rel, entry.name);
      if (ctx.excluded?.(rel)) continue; // asked for: not counted
      const abs = path.join(folder.abs, entry.name);
      const kind = entryKind(entry.name, entry);
      if (kind.kind === 'folder') subfolders.push({ abs, rel });
      else if (kind.kind === 'skip') events.push({ type: 'skipped', reason: kind.reason, absPath: abs });
      else if (kind.kind === 'sidecar') events.push({ type: 'skipped', reason: 'sidecar', absPath: abs });
      else examine.push({ abs, rel, link: kind.kind === 'link' });
      if (examine.length < BATCH && events.length < BATCH) continue;
      await examineAll();
      if (ctx.signal?.aborted) return;
      if (events.length > 0) yield events;
      events = [];
    }
    await examineAll();
    if (events.length > 0) yield events;
  } catch (error) {
    // The folder stopped reading half-way (an I/O error, a share gone): what was found stays.
    yield [warning('unreadable_folder', folder.abs, error)];
  } finally {
    await handle.close().catch(() => undefined);
    // Depth-first, in listing order.
    for (let i = subfolders.length - 1; i >= 0; i--) stack.push(subfolders[i]!);
  }
}

const isSidecarEntry = (entry: Dirent): boolean => entryKind(entry.name, entry).kind === 'sidecar';

/** A folder too large to hold: a first listing for its sidecars only. */
async function largeFolderPrint(dir: string, ctx: WalkContext): Promise<string> {
  const names: string[] = [];
  const handle = await ctx.fs.opendir(dir, { bufferSize: READ_AHEAD });
  try {
    for (let entry = await handle.read(); entry !== null; entry = await handle.read()) {
      if (isSidecarEntry(entry)) names.push(entry.name);
    }
  } finally {
    await handle.close().catch(() => undefined);
  }
  return sidecarFingerprint(dir, names, ctx.fs.stat);
}

/**
 * A media name or a symlink: what the stat found decides. A followed symlinked folder
 * joins `subfolders`.
 */
function examined(
  entry: Examined,
  outcome: StatOutcome,
  print: string,
  follow: boolean,
  subfolders: Folder[],
): WalkEvent | null {
  const name = path.basename(entry.abs);
  if (outcome.error) {
    if (outcome.error.code !== 'ENOENT') return warning('unreadable_file', entry.abs, outcome.error);
    // A link whose target is missing, or a file deleted since the listing.
    return { type: 'skipped', reason: entry.link ? 'broken_symlink' : 'vanished', absPath: entry.abs };
  }
  const stats = outcome.stats;
  if (stats.isDirectory()) {
    if (!follow) return { type: 'skipped', reason: 'symlink_folder', absPath: entry.abs };
    const found = classifyName(name, 'folder');
    if (found.kind !== 'folder') return { type: 'skipped', reason: skipReasonOf(found), absPath: entry.abs };
    subfolders.push({ abs: entry.abs, rel: entry.rel });
    return null;
  }
  const found = classifyName(name, 'file');
  if (found.kind !== 'media') return { type: 'skipped', reason: skipReasonOf(found), absPath: entry.abs };
  if (!stats.isFile()) return { type: 'skipped', reason: 'not_media', absPath: entry.abs }; // a FIFO, socket or device
  return {
    type: 'file',
    path: entry.rel,
    absPath: entry.abs,
    size: stats.size,
    mtimeMs: stats.mtimeMs,
    ino: stats.ino,
    sidecarFingerprint: print,
  };
}

/** How deep below a folder given an iCloud part's CSVs are looked for (`Part 1 of 3/iCloud Photos/Photos/`). */
const MAX_DEPTH = 6;

/** A CSV that could not be used: a warning naming it. */
export interface DetailsProblem {
  absPath: string;
  message: string;
}

/**
 * Reads the `Photo Details*.csv` of iCloud exports unzipped into folders (Safari unzips a
 * download where it lies) into the run's details before any file is walked, as a zip's are
 * read before its members: a folder given gives what its zips give. Only iCloud-shaped
 * folders are listed (a part's folder, or one whose name says iCloud: icloudFolderOf), found
 * among the folders given and their children; each CSV is streamed, keeping only the rows of
 * the photos those folders hold.
 */
export async function readFolderDetails(options: {
  roots: readonly string[];
  details: PhotoDetails;
  signal?: AbortSignal;
}): Promise<DetailsProblem[]> {
  const csvs: string[] = [];
  const names = new Set<string>();
  for (const root of options.roots) {
    const stack: { dir: string; depth: number }[] = [{ dir: root, depth: 0 }];
    while (stack.length > 0) {
      if (options.signal?.aborted) return [];
      const { dir, depth } = stack.pop()!;
      const inExport = depth > 0 || icloudFolderOf(path.join(dir, '_')) !== null;
      let entries: Dirent[];
      try {
        entries = await fsp.readdir(dir, { withFileTypes: true });
      } catch {
        continue; // the walk reports what it cannot read
      }
      for (const entry of entries) {
        const at = path.join(dir, entry.name);
        if (entry.isDirectory()) {
          // Below an export every folder; elsewhere only a child of the folder given that is one
          // by its name (the others are never listed: a library's folders are the walk's to list).
          if (depth < MAX_DEPTH && (inExport || icloudFolderOf(path.join(at, '_')) !== null))
            stack.push({ dir: at, depth: depth + 1 });
        } else if (inExport && entry.isFile()) {
          if (isPhotoDetailsName(entry.name)) csvs.push(at);
          else names.add(entry.name.normalize('NFC').toLowerCase());
        }
      }
    }
  }
  const problems: DetailsProblem[] = [];
  for (const csv of csvs) {
    if (options.signal?.aborted) break;
    const problem = await options.details.read(createReadStream(csv, { highWaterMark: 256 * 1024 }), {
      part: icloudFolderOf(csv)!,
      wanted: (name) => names.has(name),
    });
    if (problem !== null) problems.push({ absPath: csv, message: problem });
  }
  return problems;
}
