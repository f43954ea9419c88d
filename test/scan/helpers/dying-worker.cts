/**
 * A thread entry for the pool's tests: the real one (worker-entry.cts), except that a task
 * holding a file named `*kills-its-thread*` runs the thread out of its heap first, as a
 * parser without bounds once did. CommonJS as the real entry is (see there why).
 */
import type { FileResult } from '../../../src/scan/read-file.js';
import type { WorkerTask } from '../../../src/scan/worker.js';

type Handler = (task: WorkerTask) => Promise<FileResult[]>;

const real = require('../../../src/scan/worker-entry.cts') as { default: Promise<Handler> };

const hog: unknown[] = [];

module.exports = real.default.then((handler: Handler) => async (task: WorkerTask): Promise<FileResult[]> => {
  const path = (item: WorkerTask['files'][number]): string => (typeof item === 'string' ? item : item.absPath);
  if (task.files.some((item) => path(item).includes('kills-its-thread')))
    for (;;) hog.push(Array.from({ length: 100_000 }, (_, i) => ({ i })));
  return handler(task);
});
