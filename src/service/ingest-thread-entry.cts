/**
 * The file piscina loads in an ingest thread. CommonJS for the reason given in
 * src/scan/worker-entry.cts: piscina require()s its worker first, and the ES module is then
 * import()ed once; the export is a promise of the handler, awaited before the thread is ready.
 */
import type { PlannedIngest } from './ingest.js';
import type { IngestTask } from './ingest-threads.js';

type Handler = (task: IngestTask) => PlannedIngest;

// Run from sources (tests, benches) this file is .cts and tsx compiles the .ts neighbour on require().
const load = (): Promise<Handler> =>
  __filename.endsWith('.cts')
    ? Promise.resolve((require('./ingest-thread.ts') as { default: Handler }).default)
    : import('./ingest-thread.js').then((mod: { default: Handler }) => mod.default);

export default load();
