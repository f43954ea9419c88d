import { existsSync, statSync } from 'node:fs';
import { InterruptedError, UsageError } from '../errors.js';
import {
  archiveKindOf,
  copyLeftOut,
  displayPath,
  rootKindOf,
  scanLibraryBatches,
  type SidecarTree,
} from '../scan/index.js';
import type { EvidenceMemory, OriginClass } from '../scan/index.js';
import type { PipelineEvent, SyncInput } from './pipeline.js';
import type { ChangeSender } from './run.js';
import { loadWatcher } from './lazy.js';
import { createSyncTally, type SyncCounts } from './summary.js';
import type { WatchEvent } from './watch.js';
import { isNetworkFileSystem } from '../util/network-fs.js';

/** What `--watch` sent after the pass, as `--json` prints it (member `watch`). */
export interface WatchTotals extends SyncCounts {
  /** Batches of settled changes handled. */
  changes: number;
  /**
   * Folders and files that could not be read while watching. Not `unreadable` (the files of
   * `scan_errors` whose bytes could not be read): this one counts unreadable folders too.
   */
  not_read: number;
  /** Archives that appeared or changed in a watched folder and were left closed (no `--archives`). */
  archives_not_opened: number;
}

/** What a watch reports while it follows the folders (the CLI prints them). */
export type FollowEvent =
  /** The roots watched: folders, exports (archives) and other files given by name. */
  | { type: 'watching'; folders: number; exports: number; files: number; polling: boolean }
  | { type: 'watch_warning'; code: string; message: string }
  /** One batch of changes handled: the counts before and after it; `closed`: archives of it left closed. */
  | { type: 'watch_batch'; files: number; closed: number; before: SyncCounts; after: SyncCounts }
  /** A pipeline event of a batch of changes (for `--report`; the pass's progress has ended). */
  | { type: 'watch_item'; event: PipelineEvent };

/** The counts as they are now, nothing shared with the tally that goes on counting. */
const snapshot = (counts: SyncCounts): SyncCounts => ({
  ...counts,
  rejected: { ...counts.rejected },
  left_out: copyLeftOut(counts.left_out),
});

/** A watcher started before the pass, so nothing that changes once the pass begins is missed. */
export interface StartedWatch {
  readonly polling: boolean;
  /** Sends every batch of changes until the signal aborts; what happens goes to `onEvent`. */
  follow(changes: ChangeSender, onEvent: (event: FollowEvent) => void): Promise<WatchTotals>;
  /** Removes the watches (safe to call twice): a sync that failed before watching must not stay alive for them. */
  close(): Promise<void>;
}

/** The scan options a watch reads changed files with. */
export interface FollowScanOptions {
  exclude: string[];
  followSymlinks: boolean;
  /** Open archives met while walking a folder (`--archives`). */
  archives?: boolean;
  cache: boolean;
  /** The scan cache's folder (`ctx.paths.cache`). */
  cacheDir: string;
  workers?: number;
  /** The origin classes sent (`--include`; default own and unknown). */
  included?: ReadonlySet<OriginClass>;
}

export interface StartWatchOptions {
  roots: string[];
  scan: FollowScanOptions;
  cwd: string;
  /** `--poll`; without it, polling is chosen for roots on network shares. */
  poll: boolean;
  /** The run's sidecar tree (a run with archives): a batch reads its changed files and parts with it. */
  tree?: SidecarTree;
  /** The run's pairing memory: a batch's Live Photo video or edited copy goes with a still read before. */
  evidence?: EvidenceMemory;
  signal: AbortSignal;
  /** Test seam: settle and quiet delays (ms). */
  settleMs?: number;
  quietMs?: number;
}

/**
 * Sets watches on the roots and resolves once they are all set (chokidar's `ready`). A
 * Ctrl-C before then is an interruption; nothing was sent.
 */
export async function startWatch(options: StartWatchOptions): Promise<StartedWatch> {
  const polling = options.poll || options.roots.some((root) => isNetworkFileSystem(root));
  const { watchLibrary } = await loadWatcher();
  const events = watchLibrary({
    roots: options.roots,
    exclude: options.scan.exclude,
    followSymlinks: options.scan.followSymlinks,
    poll: polling,
    signal: options.signal,
    ...(options.settleMs === undefined ? {} : { settleMs: options.settleMs }),
    ...(options.quietMs === undefined ? {} : { quietMs: options.quietMs }),
  })[Symbol.asyncIterator]();
  const early: WatchEvent[] = [];
  for (;;) {
    const next = await events.next();
    if (next.done) throw new InterruptedError('sync interrupted while setting up the watches; nothing was sent');
    if (next.value.type === 'ready') break;
    early.push(next.value);
  }
  // The paths a batch's records are shown under: as in the pass.
  const shown = (absPath: string): string => displayPath(absPath, { roots: options.roots, cwd: options.cwd });

  return {
    polling,
    async follow(changes, onEvent) {
      const summary = createSyncTally();
      const totals = { changes: 0, not_read: 0, archives_not_opened: 0 };
      onEvent({ type: 'watching', ...countRoots(options.roots), polling });
      // The pass is over: the folders' sidecar texts are read from disk again when a batch needs them.
      options.tree?.index.release();
      const handle = async (event: WatchEvent): Promise<void> => {
        if (event.type === 'warning') {
          onEvent({ type: 'watch_warning', code: event.code, message: event.message });
          return;
        }
        if (event.type !== 'changes') return;
        const before = snapshot(summary.counts);
        const onItem = (item: PipelineEvent): void => onEvent({ type: 'watch_item', event: item });
        const split = splitChanges(event.files, { roots: options.roots, archives: options.scan.archives === true });
        const closed = split.closed.filter((file) => existsSync(file));
        const read = { options: options.scan, tree: options.tree, evidence: options.evidence, roots: options.roots };
        const sent = await changes.send((signal) => scanFiles(split.read, closed, read, signal, shown), {
          summary,
          onEvent: onItem,
        });
        options.tree?.index.release(); // what the batch read again of its folders' sidecars, too
        totals.changes += 1;
        totals.not_read += sent.unreadable;
        totals.archives_not_opened += closed.length;
        onEvent({
          type: 'watch_batch',
          files: event.files.length,
          closed: closed.length,
          before,
          after: snapshot(summary.counts),
        });
      };
      for (const event of early) await handle(event);
      for (;;) {
        const next = await events.next();
        if (next.done) break;
        await handle(next.value);
        if (options.signal.aborted) break;
      }
      await events.return?.(undefined);
      return { ...summary.counts, ...totals };
    },
    async close() {
      await events.return?.(undefined);
    },
  };
}

/** The roots by kind, for the watching line (a root that cannot be listed counts as a folder). */
function countRoots(roots: readonly string[]): { folders: number; exports: number; files: number } {
  const counts = { folders: 0, exports: 0, files: 0 };
  for (const root of roots) {
    let file = false;
    try {
      file = statSync(root).isFile();
    } catch {
      // Gone since the pass began: the watcher warns about it.
    }
    const kind = rootKindOf(root, { isFile: () => file });
    if (kind === 'folder') counts.folders += 1;
    else if (kind === 'archive') counts.exports += 1;
    else counts.files += 1;
  }
  return counts;
}

/**
 * Which files of a batch of changes are read, and which are archives left closed. An archive
 * is read when it is a root (one named on the command line is always read) or with
 * `--archives`, as a whole: its members then go through the journal, so a part downloaded
 * again sends only what is new. Without the flag, one met in a watched folder is counted as
 * skipped `archive`, as the pass's walk counts it.
 */
export function splitChanges(
  files: readonly string[],
  options: { roots: readonly string[]; archives: boolean },
): { read: string[]; closed: string[] } {
  const read: string[] = [];
  const closed: string[] = [];
  for (const file of files) {
    if (archiveKindOf(file) === null || options.archives || options.roots.includes(file)) read.push(file);
    else closed.push(file);
  }
  return { read, closed };
}

/**
 * The scan of one batch of changed files, as the pass saw them: media files, and archives
 * read in place (members by the same rules as in the pass); `closed` archives are only
 * reported as skipped. A file that is gone by the time it is read (moved on, deleted) is
 * left out, not an error.
 */
async function* scanFiles(
  files: string[],
  closed: string[],
  run: { options: FollowScanOptions; tree: SidecarTree | undefined; evidence?: EvidenceMemory; roots: string[] },
  signal: AbortSignal,
  shown: (absPath: string) => string,
): AsyncGenerator<SyncInput[]> {
  if (closed.length > 0)
    yield closed.map((file): SyncInput => ({ type: 'skipped', reason: 'archive', path: shown(file) }));
  const present = files.filter((file) => existsSync(file));
  if (present.length === 0) return;
  const { exclude, cache, cacheDir, workers, included } = run.options;
  try {
    for await (const events of scanLibraryBatches({
      roots: present,
      // Matched against an archive's member names, as in the pass (a file named here is read whatever its name).
      exclude,
      signal,
      cache,
      cacheDir,
      ...(workers ? { workers } : {}),
      ...(included ? { included } : {}),
      // The pass's tree: a part read again meets the other parts' sidecars, a file beside them under the pass's key.
      ...(run.tree ? { tree: run.tree, treeRoots: run.roots } : {}),
      ...(run.evidence ? { evidence: run.evidence } : {}),
    })) {
      yield events.map(
        (event): SyncInput =>
          event.type === 'record'
            ? { type: 'record', record: { ...event.record, path: shown(event.record.absPath) } }
            : event,
      );
    }
  } catch (error) {
    // Gone between the check and the read: the next change, or the next run, picks it up.
    const code = (error as NodeJS.ErrnoException).code;
    if (!(error instanceof UsageError) && code !== 'ENOENT') throw error;
  }
}
