import { createSidecarFinder, extractFile, HEAD_BYTES } from './extract/index.js';
import { createFileReader, type FileResult } from './read-file.js';

/** One worker task: a few files, so small files do not pay a thread round-trip each. */
export interface WorkerTask {
  files: string[];
}

// One reader per worker thread: its hashing buffer and sidecar lookups are reused across tasks.
let reader: ((absPath: string) => Promise<FileResult>) | null = null;
// The pool hands each thread its next task before the current one ends (so the thread never
// waits for the main thread); tasks still run one after the other, as they share the buffer.
let previous: Promise<unknown> = Promise.resolve();

/** Piscina entry point: reads, extracts and hashes each file of the task in turn. */
export default function processFiles(task: WorkerTask): Promise<FileResult[]> {
  const run = previous.then(async () => {
    reader ??= createFileReader({ extract: extractFile, sidecars: createSidecarFinder(), headBytes: HEAD_BYTES });
    const results: FileResult[] = [];
    for (const absPath of task.files) results.push(await reader(absPath));
    return results;
  });
  previous = run.catch(() => undefined);
  return run;
}
