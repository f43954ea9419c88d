import { workerData } from 'node:worker_threads';
import { planIngest, type PlannedIngest } from './ingest.js';
import { matcherFromTables } from './matching/index.js';
import type { IngestTask, IngestThreadData } from './ingest-threads.js';

// Built once per thread, from the tables the main thread laid out (no catalog load here).
const matcher = matcherFromTables((workerData as IngestThreadData).tables);

/** One ingest body in, its plan out (see planIngest). */
export default function plan(task: IngestTask): PlannedIngest {
  return planIngest(task.body, matcher);
}
