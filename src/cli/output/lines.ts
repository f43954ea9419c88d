import { once } from 'node:events';
import { createWriteStream, fchmod, fstat, promises as fsp, type WriteStream } from 'node:fs';
import { promisify } from 'node:util';
import type { Writable } from 'node:stream';
import { OutputError, UsageError } from '../../errors.js';
import { describeFsError } from '../../util/fs-error.js';

/** Writes one line and waits when the stream is full, so a slow reader of stdout holds memory flat. */
export async function writeLineWithBackpressure(stream: Writable, line: string): Promise<void> {
  if (!stream.write(`${line}\n`)) await once(stream, 'drain');
}

/**
 * Opens a file camroll writes user data to (`w` truncates, `a` appends): mode 0600, also
 * when it existed with wider permissions; a device such as /dev/null is left alone. A file
 * that cannot be opened is a usage error naming it as `what`.
 */
export async function openPrivateStream(file: string, flags: 'w' | 'a', what: string): Promise<WriteStream> {
  const stream = createWriteStream(file, { flags, mode: 0o600 });
  try {
    const [fd] = (await once(stream, 'open')) as [number];
    if ((await promisify(fstat)(fd)).isFile()) await promisify(fchmod)(fd, 0o600);
  } catch (error) {
    stream.destroy();
    throw new UsageError(`cannot write the ${what} ${file}: ${describeFsError(error as NodeJS.ErrnoException)}`);
  }
  return stream;
}

/** A JSON-lines file written as events arrive (`--report FILE`). */
export interface JsonLinesFile {
  readonly path: string;
  /** Writes one value; waits while the file is behind. Rejects once a write has failed. */
  write(value: unknown): Promise<void>;
  /** Flushes and closes; rejects with the first write failure, if any. */
  close(): Promise<void>;
}

export interface OpenJsonLinesOptions {
  /** Told when an existing file is overwritten (a line for stderr). */
  notice?: (line: string) => void;
}

/**
 * Opens (truncates) a JSON-lines file that may hold user data: mode 0600, also when the file
 * existed with wider permissions. A file that cannot be created is a usage error at once; a
 * write that fails later (a full disk, `/dev/full`) is a `report_write_failed` error.
 */
export async function openJsonLinesFile(file: string, options: OpenJsonLinesOptions = {}): Promise<JsonLinesFile> {
  let existed = false;
  try {
    existed = (await fsp.stat(file)).isFile();
  } catch {
    existed = false;
  }
  const stream = await openPrivateStream(file, 'w', 'report file');
  if (existed) options.notice?.(`overwriting ${file}`);
  let failure: OutputError | null = null;
  stream.on('error', (error: NodeJS.ErrnoException) => {
    failure ??= new OutputError(
      'report_write_failed',
      `cannot write the report file ${file}: ${describeFsError(error)}`,
      {
        cause: error,
      },
    );
  });
  const failed = (): Promise<never> => Promise.reject(failure);
  return {
    path: file,
    async write(value) {
      if (failure) return failed();
      if (!stream.write(`${JSON.stringify(value)}\n`)) await drainedOrClosed(stream);
      if (failure) return failed();
    },
    async close() {
      if (!stream.closed) {
        stream.end();
        await once(stream, 'close').catch(() => undefined);
      }
      if (failure) return failed();
    },
  };
}

/**
 * Waits for 'drain' or 'close' (a failed write emits 'error', then 'close', never 'drain').
 * The listener that did not fire is removed: a report of thousands of lines waits thousands
 * of times, and listeners left behind pile up on the stream.
 */
async function drainedOrClosed(stream: WriteStream): Promise<void> {
  const done = new AbortController();
  const { signal } = done;
  try {
    await Promise.race([once(stream, 'drain', { signal }), once(stream, 'close', { signal })]);
  } catch {
    // The stream's error is kept by its 'error' handler; an abort is our own clean-up.
  } finally {
    done.abort();
  }
}
