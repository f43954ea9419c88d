import * as nodeFs from 'node:fs';
import type { Dirent, Stats } from 'node:fs';
import * as fsp from 'node:fs/promises';
import path from 'node:path';
import { describeFsError } from '../util/fs-error.js';
import { createExcludeMatcher } from './exclude.js';
import { classifyName, entryKind, skipReasonOf } from './classify.js';
import { sidecarFingerprint } from './sidecar-print.js';
import type { WalkEvent } from './sources/source.js';
import { createBatchStat, type StatOutcome } from './stat-batch.js';

export type { WalkEvent, WalkFile } from './sources/source.js';

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
  /** Glob patterns relative to each root; a pattern without `/` matches at any depth (exclude.ts). */
  exclude?: string[];
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
  excluded: ((relPath: string) => boolean) | null;
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
export async function* walkBatches(options: WalkOptions): AsyncGenerator<WalkEvent[]> {
  const fs = walkFs(options.fs);
  const ctx: WalkContext = {
    fs,
    statBatch: createBatchStat(fs),
    excluded: createExcludeMatcher(options.exclude ?? []),
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
