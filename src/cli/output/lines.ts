import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import type { Writable } from 'node:stream';

/** Writes one line and waits when the stream is full, so a slow reader of stdout holds memory flat. */
export async function writeLineWithBackpressure(stream: Writable, line: string): Promise<void> {
  if (!stream.write(`${line}\n`)) await once(stream, 'drain');
}

/** A JSON-lines file written as events arrive (`--report FILE`). */
export interface JsonLinesFile {
  write(value: unknown): Promise<void>;
  close(): Promise<void>;
}

/** Opens (truncates) a JSON-lines file; fails early when the file cannot be created. */
export async function openJsonLinesFile(file: string): Promise<JsonLinesFile> {
  const stream = createWriteStream(file, { flags: 'w' });
  await once(stream, 'open');
  return {
    write: (value) => writeLineWithBackpressure(stream, JSON.stringify(value)),
    close: () =>
      new Promise((resolve, reject) => {
        stream.end((error?: Error | null) => (error ? reject(error) : resolve()));
      }),
  };
}
