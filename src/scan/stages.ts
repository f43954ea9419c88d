import type { ScanCache } from './cache.js';
import type { FileResult } from './read-file.js';
import type { ScanEvent, ScanRecord } from './types.js';
import type { WalkEvent, WalkFile } from './sources/folder.js';

/**
 * The stages between the walk and the scan's events, each a small async generator over
 * batches (a batch is at most about 64 entries: per-batch pulls keep the generator overhead
 * off each file while memory stays bounded). Nothing runs ahead of what the consumer pulls,
 * except the reads in flight; `return()` on the last stage unwinds them all.
 */

/** What the cache lookup hands on: events ready to show, and the files to read. */
export interface LookedUp {
  events: ScanEvent[];
  misses: WalkFile[];
}

/** What the grouping hands on: events, and at most one group of files for one read task. */
export interface Grouped {
  events: ScanEvent[];
  group: WalkFile[] | null;
}

/** The record of a walked file from a read or a cache entry. */
export function toRecord(
  file: WalkFile,
  result: Pick<FileResult, 'media' | 'source' | 'error'>,
  cached: boolean,
): ScanRecord {
  return {
    path: file.path,
    absPath: file.absPath,
    size: file.size,
    mtimeMs: file.mtimeMs,
    media: result.media,
    source: result.source,
    error: result.error,
    cached,
    ...(file.member ? { archive: file.member.archive } : {}),
  };
}

/**
 * Walk events -> shown events: skip notices and warnings get the path the user sees,
 * unchanged files come from the cache as records, the rest are misses to read.
 */
export async function* lookUpCache(
  walked: AsyncIterable<WalkEvent[]>,
  options: { cache: ScanCache | null; shownPath: (absPath: string) => string },
): AsyncGenerator<LookedUp> {
  for await (const batch of walked) {
    const events: ScanEvent[] = [];
    const misses: WalkFile[] = [];
    for (const event of batch) {
      if (event.type === 'skipped') {
        events.push({ type: 'skipped', reason: event.reason, path: options.shownPath(event.absPath) });
      } else if (event.type === 'warning') {
        events.push({
          type: 'warning',
          code: event.code,
          path: options.shownPath(event.absPath),
          message: event.message,
        });
      } else {
        // An archive member refused before reading (encrypted, past the limits, cut short) is its error line.
        const problem = event.member?.problem;
        if (problem) {
          events.push({
            type: 'record',
            record: toRecord(event, { media: null, source: null, error: problem }, false),
          });
          continue;
        }
        const hit = event.member?.uncached ? null : options.cache?.get(event);
        if (hit) events.push({ type: 'record', record: toRecord(event, hit, true) });
        else misses.push(event);
      }
    }
    yield { events, misses };
  }
}

/**
 * Misses -> groups for one worker task each, by count and bytes: small files share a thread
 * round trip. The first groups are small and grow (8, 16, … up to `maxFiles`), so every
 * thread gets work and the first records come out early; `onFirst` starts the threads on
 * the first miss, while the walk fills the first group.
 */
export async function* groupMisses(
  looked: AsyncIterable<LookedUp>,
  options: {
    maxFiles: number;
    maxBytes: number;
    /** Bytes a group may hold in memory (members already read, on their way to a thread); default maxBytes. */
    maxHeldBytes?: number;
    /** The bytes a file's task holds in memory (default: none; a file is read where it lies). */
    heldBytes?: (file: WalkFile) => number;
    firstFiles?: number;
    onFirst?: () => void;
  },
): AsyncGenerator<Grouped> {
  let limit = Math.min(options.firstFiles ?? 8, options.maxFiles);
  let group: WalkFile[] = [];
  let bytes = 0;
  let held = 0;
  const maxHeld = options.maxHeldBytes ?? options.maxBytes;
  let started = false;
  for await (const { events, misses } of looked) {
    if (misses.length > 0 && !started) {
      started = true;
      options.onFirst?.();
    }
    let waiting = events;
    for (const file of misses) {
      group.push(file);
      bytes += file.size;
      held += options.heldBytes?.(file) ?? 0;
      if (group.length < limit && bytes < options.maxBytes && held < maxHeld) continue;
      yield { events: waiting, group };
      waiting = [];
      group = [];
      bytes = 0;
      held = 0;
      limit = Math.min(limit * 2, options.maxFiles);
    }
    if (waiting.length > 0) yield { events: waiting, group: null };
  }
  if (group.length > 0) yield { events: [], group };
}

export interface ReadGroupsOptions {
  /** Reads one group; the signal aborts it (results of an aborted in-thread run may be partial). */
  run(files: WalkFile[], signal: AbortSignal): Promise<FileResult[]>;
  /** Groups in flight at most. */
  limit: number;
  /** The scan's abort: reads in flight are dropped, the stage ends. */
  signal: AbortSignal;
  /**
   * The event of one read file (and where it is stored in the cache); also called for results that arrive after an
   * abort.
   */
  finish(file: WalkFile, result: FileResult): ScanEvent;
}

/**
 * Groups -> records, with at most `limit` reads in flight: events come out as reads finish
 * (out of order), and upstream is pulled only while a read slot is free. A read that fails
 * as a whole gives each of its files an `internal_error` record.
 */
export async function* readGroups(
  source: AsyncIterable<Grouped>,
  options: ReadGroupsOptions,
): AsyncGenerator<ScanEvent[]> {
  const upstream = source[Symbol.asyncIterator]();
  const stop = new AbortController();
  const onAbort = (): void => stop.abort();
  if (options.signal.aborted) onAbort();
  else options.signal.addEventListener('abort', onAbort, { once: true });
  const stopped = new Promise<void>((resolve) =>
    stop.signal.addEventListener('abort', () => resolve(), { once: true }),
  );
  const ready: ScanEvent[][] = [];
  const running = new Set<Promise<void>>();
  let pulling: Promise<void> | null = null;
  // Set by the pull in flight (an object: TypeScript does not see closures assign a `let`).
  // A failure is held until the loop runs again: a rejection nobody awaits must not go unhandled.
  const pull: { result: IteratorResult<Grouped> | null; failure: { error: unknown } | null } = {
    result: null,
    failure: null,
  };
  let ended = false;

  const start = (files: WalkFile[]): void => {
    const task: Promise<void> = options
      .run(files, stop.signal)
      .then(
        (results) => {
          const events = results.map((result, i) => options.finish(files[i]!, result));
          if (!stop.signal.aborted) ready.push(events);
        },
        (error: unknown) => {
          if (stop.signal.aborted) return; // unfinished reads are dropped, not reported
          const message = error instanceof Error ? error.message : String(error);
          ready.push(
            files.map((file) =>
              options.finish(file, {
                absPath: file.absPath,
                size: file.size,
                media: null,
                source: null,
                cacheable: false,
                error: { code: 'internal_error', message },
              }),
            ),
          );
        },
      )
      .finally(() => running.delete(task));
    running.add(task);
  };

  try {
    for (;;) {
      if (pull.failure !== null) throw pull.failure.error;
      // A pulled group waits for a free slot; its events go out with it.
      const result = pull.result;
      if (result !== null && (result.done || result.value.group === null || running.size < options.limit)) {
        pull.result = null;
        pulling = null;
        if (result.done) ended = true;
        else {
          if (result.value.events.length > 0) ready.push(result.value.events);
          if (result.value.group) start(result.value.group);
        }
      }
      // Pull ahead while a slot is free, so the walk and the cache work while the consumer does.
      if (!ended && pulling === null && running.size < options.limit) {
        pulling = upstream.next().then(
          (next) => {
            pull.result = next;
          },
          (error: unknown) => {
            pull.failure = { error };
          },
        );
      }
      if (ready.length > 0) {
        yield ready.shift()!;
        continue;
      }
      if (stop.signal.aborted || (ended && running.size === 0)) return;
      const waits: Promise<unknown>[] = [...running, stopped];
      if (pulling !== null && pull.result === null && pull.failure === null) waits.push(pulling);
      await Promise.race(waits);
    }
  } finally {
    // Leaving early (return(), an abort, an error): stop the reads, let them settle, then
    // unwind the walk once its pending step is done.
    stop.abort();
    options.signal.removeEventListener('abort', onAbort);
    await Promise.allSettled([...running]);
    if (pulling !== null) await pulling;
    if (pull.failure === null) await upstream.return?.(undefined);
  }
}
