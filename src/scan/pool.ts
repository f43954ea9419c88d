import { memberBuffers } from './archive/types.js';
import type { FileResult } from './read-file.js';
import type { ItemReader, ReadItem, WorkerTask } from './worker.js';
import { threadEntry } from '../util/thread-entry.js';

/** Runs groups of files through read + extract + hash. */
export interface FilePool {
  /**
   * Results in the order of `files`. The signal stops an in-thread run between files (it
   * returns those it finished); a task in a thread always runs to its end.
   */
  run(files: ReadItem[], signal?: AbortSignal): Promise<FileResult[]>;
  close(): Promise<void>;
}

export interface FilePoolOptions {
  /** Worker threads; 0 runs in this thread (tests, and an injected reader). */
  workers: number;
  /** The reader of in-thread runs (workers: 0; a test's, over another extractor); threads always use the real one. */
  reader?: ItemReader;
  /** Another thread entry (tests: one that dies on a given file); default worker-entry. */
  entry?: { filename: string; execArgv: string[] };
}

/**
 * Tasks a thread holds at once: one running and the next waiting (worker.ts runs them in
 * turn), so it never sits idle waiting for the main thread. A caller keeps this many per
 * thread in flight (`slots`).
 */
const TASKS_PER_THREAD = 2;

/** Creates a pool of worker threads (piscina), or an in-thread stand-in when `workers` is 0. */
export async function createFilePool(options: FilePoolOptions): Promise<FilePool> {
  if (options.workers <= 0) {
    // Loaded only here: with threads, the main thread never loads the readers.
    const reader = options.reader ?? (await import('./worker.js')).createItemReader();
    let previous: Promise<unknown> = Promise.resolve();
    return {
      // Runs one after the other: the reader's buffer is shared, and an extraction awaits.
      // On abort it stops between files: what was read is returned (and cached), nothing more.
      run(files, signal) {
        const run = previous.then(async () => {
          const results: FileResult[] = [];
          for (const file of files) {
            if (signal?.aborted) break;
            results.push(await reader(file));
          }
          return results;
        });
        previous = run.catch(() => undefined);
        return run;
      },
      async close() {},
    };
  }
  // Loaded here: a re-scan served from the cache never needs it.
  const { Piscina } = await import('piscina');
  const { filename, execArgv } = options.entry ?? threadEntry(import.meta.url, 'worker-entry');
  const pool = new Piscina<WorkerTask, FileResult[]>({
    filename,
    execArgv,
    minThreads: options.workers,
    maxThreads: options.workers,
    // Each thread holds its next task while working on one (worker.ts runs them in turn), so
    // it never sits idle waiting for the main thread to answer a finished task.
    concurrentTasksPerWorker: TASKS_PER_THREAD,
    // A worker's live data is one file's head and a 1 MiB buffer (both outside the JS heap);
    // without caps V8 lets each thread's heap drift up by tens of MB before collecting, and
    // the 250 MB budget covers the whole process. 64 MB of old space is ample headroom.
    resourceLimits: { maxYoungGenerationSizeMb: 4, maxOldGenerationSizeMb: 64 },
  });
  // Tasks are never aborted inside a thread: piscina ends a thread whose task is aborted,
  // and with two tasks per thread the other task's answer can then arrive for a task it no
  // longer knows ("Unexpected message from Worker", thrown where nothing can catch it). A
  // task is one group (a few MB, tens of ms), so a stopped scan drops the answers of the
  // groups in flight instead, and close() lets them settle before the threads go.
  const inFlight = new Set<Promise<unknown>>();
  const runTask = (files: ReadItem[]): Promise<FileResult[]> => {
    // Bytes read by the main thread (a .tgz member, a nested zip's member) move to the thread, never copied.
    const transferList = files.flatMap((item) =>
      typeof item !== 'string' && 'source' in item ? memberBuffers(item.source) : [],
    );
    return pool.run({ files }, transferList.length > 0 ? { transferList } : {});
  };
  /**
   * A group whose thread died (out of its heap on one file: the readers catch everything else)
   * is read again one file per task: the file that kills its thread again gets the error, the
   * others of its group are read as if nothing happened. These reads run one at a time, so
   * the file that kills a thread never takes another file read again with it (a group of the
   * scan it takes is read again in turn).
   */
  let retries: Promise<unknown> = Promise.resolve();
  const retry = (item: ReadItem): Promise<FileResult[]> => {
    const run = retries.then(() => runTask([item]));
    retries = run.catch(() => undefined);
    return run;
  };
  const runGroup = async (files: ReadItem[]): Promise<FileResult[]> => {
    // Which items hold bytes of their own: after a thread died with them, those bytes are gone.
    const holding = files.map((item) => heldBytes(item) > 0);
    try {
      return await runTask(files);
    } catch {
      // A group of one is read again too: its thread may have died of the other task it held.
      return Promise.all(
        files.map((item, i) =>
          holding[i] && heldBytes(item) === 0
            ? stopped(item, 'the reading thread stopped on another file of its group, with these bytes; scan again')
            : retry(item).then(
                (results) => results[0]!,
                (again: unknown) => stopped(item, `the reading thread stopped on this file: ${describe(again)}`),
              ),
        ),
      );
    }
  };
  return {
    run(files) {
      const task = runGroup(files);
      const settled = task.catch(() => undefined);
      inFlight.add(settled);
      void settled.then(() => inFlight.delete(settled));
      return task;
    },
    async close() {
      await Promise.all(inFlight);
      await pool.destroy();
    },
  };
}

/**
 * A pool that starts on its first use or `start()` (a re-scan served from the cache never
 * starts a thread); `start()` does not wait, so threads boot while the caller goes on. A pool
 * that failed to start fails every run; `close()` closes it only if it started.
 */
export function createLazyPool(options: FilePoolOptions): FilePool & { start(): void; slots: number } {
  let pool: Promise<FilePool> | null = null;
  const started = (): Promise<FilePool> => (pool ??= createFilePool(options));
  return {
    slots: Math.max(options.workers, 1) * TASKS_PER_THREAD,
    start: () => void started().catch(() => undefined), // the failure surfaces in the first run
    run: async (files, signal) => (await started()).run(files, signal),
    async close() {
      await (await pool?.catch(() => null))?.close();
    },
  };
}

/**
 * Bytes an item holds (a tar member's, a nested zip member's): 0 once they moved to a thread,
 * so bytes that went with a thread that died cannot be read again.
 */
function heldBytes(item: ReadItem): number {
  if (typeof item === 'string' || !('source' in item)) return 0;
  return memberBuffers(item.source).reduce((sum, buffer) => sum + buffer.byteLength, 0);
}

/** The answer for a file whose reading thread died: an internal_error, not cached (it may pass next time). */
function stopped(item: ReadItem, message: string): FileResult {
  const absPath = typeof item === 'string' ? item : item.absPath;
  return {
    absPath,
    size: 0,
    media: null,
    source: null,
    error: { code: 'internal_error', message },
    cacheable: false,
  };
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
