import { createSidecarFinder, extractFile, HEAD_BYTES } from './extract/index.js';
import { createFileReader, type FileResult } from './read-file.js';

/** One worker task: a few files, so small files do not pay a thread round-trip each. */
export interface WorkerTask {
  files: string[];
}

// One reader per worker thread: its hashing buffer and sidecar lookups are reused across tasks.
let reader: ((absPath: string) => Promise<FileResult>) | null = null;

/** Piscina entry point: reads, extracts and hashes each file of the task in turn. */
export default async function processFiles(task: WorkerTask): Promise<FileResult[]> {
  reader ??= createFileReader({ extract: extractFile, sidecars: createSidecarFinder(), headBytes: HEAD_BYTES });
  const results: FileResult[] = [];
  for (const absPath of task.files) results.push(await reader(absPath));
  return results;
}
