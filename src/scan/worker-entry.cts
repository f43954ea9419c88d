/**
 * The file piscina loads in each worker thread. CommonJS on purpose: piscina loads its
 * worker with require() first, and Node 20's require() of an ES module can abort the whole
 * process when two loads of the same module overlap (piscina preloads while the first task
 * arrives). A plain require() of this file is safe; the ES module is then import()ed.
 */
import type { WorkerTask } from './worker.js';
import type { FileResult } from './read-file.js';

type Handler = (task: WorkerTask) => Promise<FileResult[]>;
let loaded: Promise<Handler> | null = null;

// Run from sources (tests, benches) this file is .cts and tsx compiles the .ts neighbour on require().
const load = (): Promise<Handler> =>
  __filename.endsWith('.cts')
    ? Promise.resolve((require('./worker.ts') as { default: Handler }).default)
    : import('./worker.js').then((mod: { default: Handler }) => mod.default);

module.exports = async function run(task: WorkerTask): Promise<FileResult[]> {
  loaded ??= load();
  return (await loaded)(task);
};
