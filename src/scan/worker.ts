import { createMemberReader } from './archive/read-member.js';
import type { MemberTask } from './archive/types.js';
import { createSidecarFinder, extractFile, HEAD_BYTES } from './extract/index.js';
import { createFileReader, type FileResult, type FileTask } from './read-file.js';

/** What one read is: a file's path, a file with the sidecars matched for it, or an archive member. */
export type ReadItem = string | FileTask | MemberTask;

/** One worker task: a few files, so small files do not pay a thread round-trip each. */
export interface WorkerTask {
  files: ReadItem[];
}

/** Reads one item: its metadata extracted, its bytes hashed. */
export type ItemReader = (item: ReadItem) => Promise<FileResult>;

// One reader per worker thread: its hashing buffer and sidecar lookups are reused across tasks.
let reader: ItemReader | null = null;

/** A reader of files and archive members sharing nothing but the extractor (tests pass another). */
export function createItemReader(extract: typeof extractFile = extractFile): ItemReader {
  const files = createFileReader({ extract, sidecars: createSidecarFinder(), headBytes: HEAD_BYTES });
  const members = createMemberReader({ extract, headBytes: HEAD_BYTES });
  return (item) => (typeof item === 'string' || !('source' in item) ? files(item) : members(item));
}
// The pool hands each thread its next task before the current one ends (so the thread never
// waits for the main thread); tasks still run one after the other, as they share the buffer.
let previous: Promise<unknown> = Promise.resolve();

/** Piscina entry point: reads, extracts and hashes each file of the task in turn. */
export default function processFiles(task: WorkerTask): Promise<FileResult[]> {
  const run = previous.then(async () => {
    reader ??= createItemReader();
    const results: FileResult[] = [];
    for (const absPath of task.files) results.push(await reader(absPath));
    return results;
  });
  previous = run.catch(() => undefined);
  return run;
}
