import { existsSync } from 'node:fs';
import path from 'node:path';
import { InterruptedError, UsageError } from '../errors.js';
import { scanLibraryBatches } from '../scan/scan.js';
import type { PipelineEvent, SyncInput } from '../sync/pipeline.js';
import type { ChangeSender } from '../sync/run.js';
import { createSyncTally, totalRejected, type SyncCounts } from '../sync/summary.js';
import type { WatchEvent } from '../sync/watch.js';
import { isNetworkFileSystem } from '../util/network-fs.js';
import type { ScanOptions } from './scan-options.js';

/** What `--watch` sent after the pass, as `--json` prints it (member `watch`). */
export interface WatchTotals extends SyncCounts {
  /** Batches of settled changes handled. */
  changes: number;
  /** Files that could not be read while watching. */
  unreadable: number;
}

/** A watcher started before the pass, so nothing that changes once the pass begins is missed. */
export interface StartedWatch {
  readonly polling: boolean;
  /** Sends every batch of changes until the signal aborts; lines go to `note`. */
  follow(changes: ChangeSender, note: (line: string) => void, onEvent: (event: PipelineEvent) => void): Promise<WatchTotals>;
  /** Removes the watches (safe to call twice): a sync that failed before watching must not stay alive for them. */
  close(): Promise<void>;
}

export interface StartWatchOptions {
  roots: string[];
  scan: ScanOptions;
  cwd: string;
  /** `--poll`; without it, polling is chosen for roots on network shares. */
  poll: boolean;
  signal: AbortSignal;
  /** Test seam: settle and quiet delays (ms). */
  settleMs?: number;
  quietMs?: number;
}

const plural = (n: number, one: string, many = `${one}s`): string => `${n} ${n === 1 ? one : many}`;

/**
 * Sets watches on the roots and resolves once they are all set (chokidar's `ready`). A
 * Ctrl-C before then is an interruption; nothing was sent.
 */
export async function startWatch(options: StartWatchOptions): Promise<StartedWatch> {
  const polling = options.poll || options.roots.some((root) => isNetworkFileSystem(root));
  // Loaded here: a sync without --watch need not pay for chokidar (~10 ms at start).
  const { watchLibrary } = await import('../sync/watch.js');
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
  // The paths a batch's records are shown under: as in the pass (see scan's pathShower).
  const base = options.roots.length === 1 ? options.roots[0]! : options.cwd;
  const shown = (absPath: string): string => (path.relative(base, absPath) || path.basename(absPath)).split(path.sep).join('/');

  return {
    polling,
    async follow(changes, note, onEvent) {
      const summary = createSyncTally();
      const totals = { changes: 0, unreadable: 0 };
      const what = plural(options.roots.length, 'folder');
      note(`camroll: watching ${what} for new or changed files${polling ? ' (polling)' : ''}; Ctrl-C stops`);
      const handle = async (event: WatchEvent): Promise<void> => {
        if (event.type === 'warning') {
          note(`camroll: warning: ${event.message} [${event.code}]`);
          return;
        }
        if (event.type !== 'changes') return;
        const before = { ...summary.counts, rejected: { ...summary.counts.rejected } };
        const sent = await changes.send((signal) => scanFiles(event.files, options.scan, signal, shown), { summary, onEvent });
        totals.changes += 1;
        totals.unreadable += sent.unreadable;
        note(`camroll: ${describeBatch(event.files.length, before, summary.counts)}`);
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

/** One line per batch: how many files, and what the service answered. */
export function describeBatch(files: number, before: SyncCounts, after: SyncCounts): string {
  const d = (key: 'sent' | 'accepted' | 'matched' | 'skipped_already_sent' | 'failed_batches' | 'unreadable' | 'damaged' | 'duplicates'): number => after[key] - before[key];
  const rejected = totalRejected(after) - totalRejected(before);
  const pending = after.pending - before.pending;
  const parts = [`watch: ${plural(files, 'new or changed file')}`];
  if (d('sent') > 0) parts.push(`sent ${d('sent')} (accepted ${d('accepted')}, matched ${d('matched')}, rejected ${rejected})`);
  else if (pending === 0) parts.push('nothing new to send');
  if (d('skipped_already_sent') > 0) parts.push(`${d('skipped_already_sent')} already sent`);
  if (d('duplicates') > 0) parts.push(plural(d('duplicates'), 'duplicate'));
  if (d('unreadable') > 0) parts.push(`${d('unreadable')} unreadable`);
  if (d('damaged') > 0) parts.push(`${d('damaged')} damaged`);
  if (d('failed_batches') > 0) parts.push(`${plural(d('failed_batches'), 'batch', 'batches')} failed, ${plural(pending, 'item')} pending`);
  // Cut off before an answer (the host went away, Ctrl-C): not sent, and not a failed batch.
  else if (pending > 0) parts.push(`not sent, ${plural(pending, 'item')} pending`);
  return parts.join(', ');
}

/**
 * The scan of one batch of changed files, as the pass saw them. A file that is gone by the
 * time it is read (moved on, deleted) is left out, not an error.
 */
async function* scanFiles(files: string[], options: ScanOptions, signal: AbortSignal, shown: (absPath: string) => string): AsyncGenerator<SyncInput[]> {
  const present = files.filter((file) => existsSync(file));
  if (present.length === 0) return;
  const { cache, workers } = options;
  try {
    for await (const events of scanLibraryBatches({ roots: present, signal, cache, ...(workers ? { workers } : {}) })) {
      yield events.map((event): SyncInput => (event.type === 'record' ? { type: 'record', record: { ...event.record, path: shown(event.record.absPath) } } : event));
    }
  } catch (error) {
    // Gone between the check and the read: the next change, or the next run, picks it up.
    const code = (error as NodeJS.ErrnoException).code;
    if (!(error instanceof UsageError) && code !== 'ENOENT') throw error;
  }
}
