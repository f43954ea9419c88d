/**
 * The file piscina loads in each worker thread. CommonJS on purpose: piscina loads its
 * worker with require() first, and Node 20's require() of an ES module can abort the whole
 * process when two loads of the same module overlap (piscina preloads while the first task
 * arrives). A plain require() of this file is safe; the ES module is then import()ed once.
 *
 * The export is a promise of the handler: piscina awaits it before the thread reports
 * ready, so the extractor loads while the main thread is still starting and walking, and
 * never while the thread sleeps in Atomics.wait between tasks (which would stall it).
 */
import type { WorkerTask } from './worker.js';
import type { FileResult } from './read-file.js';

type Handler = (task: WorkerTask) => Promise<FileResult[]>;

// Run from sources (tests, benches) this file is .cts and tsx compiles the .ts neighbour on require().
const load = (): Promise<Handler> =>
  __filename.endsWith('.cts')
    ? Promise.resolve((require('./worker.ts') as { default: Handler }).default)
    : import('./worker.js').then((mod: { default: Handler }) => mod.default);

export default load();
