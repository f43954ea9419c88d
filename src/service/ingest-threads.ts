import { availableParallelism } from 'node:os';
import { InternalError } from '../errors.js';
import { planIngest, type PlannedIngest } from './ingest.js';
import { matcherFromTables, type MatcherTables } from './matching/index.js';
import { threadEntry } from '../util/thread-entry.js';

/** What an ingest thread is started with. */
export interface IngestThreadData {
  tables: MatcherTables;
}

/** One body for an ingest thread: its bytes move to the thread (undefined: no body). */
export interface IngestTask {
  body: Uint8Array | undefined;
}

/** Plans ingest bodies (planIngest) in this thread or in ingest threads. */
export interface IngestPlanner {
  /** Never rejects for a bad body (the plan says why); rejects only on a defect. */
  plan(body: Buffer | undefined): Promise<PlannedIngest>;
  close(): Promise<void>;
}

export interface IngestPlannerOptions {
  /** Ingest threads; 0 plans in the calling thread. */
  threads: number;
  /** What the matcher is built from, in this thread or in each thread. */
  tables: MatcherTables;
}

/**
 * `serve`'s default: one ingest thread from four cores up, so parsing and matching a batch
 * (most of its cost) run beside the event loop that answers HTTP, with cores left for the
 * clients and the rest of the machine; none below. The hand-over costs CPU of its own, so
 * where the thread has to share a core (two cores, with the clients on the same machine)
 * it is slower: bench:store measured 128-131 k items/s with it against 142-153 k without.
 */
export function defaultIngestThreads(cores = availableParallelism()): number {
  return cores >= 4 ? 1 : 0;
}

/**
 * Creates the planner. With threads, a batch's bytes are moved to a thread (not copied),
 * parsed and matched there, and only the plan comes back: the event loop keeps answering
 * other requests meanwhile, and the store transaction stays in this thread.
 */
export async function createIngestPlanner(options: IngestPlannerOptions): Promise<IngestPlanner> {
  if (options.threads <= 0) {
    const matcher = matcherFromTables(options.tables);
    return {
      plan: async (body) => planIngest(body, matcher),
      async close() {},
    };
  }
  // Loaded here: most processes (the CLI's own in-process service) never start a thread.
  const { Piscina } = await import('piscina');
  const { filename, execArgv } = threadEntry(import.meta.url, 'ingest-thread-entry');
  const pool = new Piscina<IngestTask, PlannedIngest>({
    filename,
    execArgv,
    workerData: { tables: options.tables } satisfies IngestThreadData,
    minThreads: options.threads,
    maxThreads: options.threads,
    idleTimeout: Infinity,
    // Each thread holds the next bodies while it works on one, so it never waits for the
    // event loop between batches; the admission queue already bounds how many run at once.
    concurrentTasksPerWorker: 4,
  });
  // A thread that dies fails the batches it held (each a 500) and piscina starts another; the
  // process lives on.
  pool.on('error', () => undefined);
  // Started here, not at the first batch: a thread that cannot start fails the start-up.
  try {
    await pool.run({ body: undefined });
  } catch (error) {
    await pool.destroy();
    throw new InternalError(`the ingest thread did not start: ${(error as Error).message}`, { cause: error });
  }
  return {
    plan(body) {
      if (body === undefined) return pool.run({ body: undefined });
      // Moved, not copied: a body the parser read whole owns its memory; a small one that
      // shares Node's buffer pool is copied out first.
      const bytes = body.byteOffset === 0 && body.byteLength === body.buffer.byteLength ? body : new Uint8Array(body);
      return pool.run({ body: bytes }, { transferList: [bytes.buffer as ArrayBuffer] });
    },
    close: () => pool.destroy(),
  };
}
