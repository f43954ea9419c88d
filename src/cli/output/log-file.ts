import { Writable } from 'node:stream';
import { finished } from 'node:stream/promises';
import { OutputError } from '../../errors.js';
import { describeFsError } from '../../util/fs-error.js';
import { openPrivateStream } from './lines.js';

/** A log for unattended runs: every line it is given, stamped with the time. */
export interface LogFile {
  /** Takes whole lines (each ending in a newline) and stamps each one. */
  readonly stream: Writable;
  close(): Promise<void>;
}

/**
 * Opens a log file for appending (mode 0600: its lines name files and users). Each line
 * written to `stream` gets an ISO 8601 UTC time in front. A file that cannot be opened is
 * a usage error; a write that fails later ends the command at close.
 */
export async function openLogFile(path: string, now: () => Date = () => new Date()): Promise<LogFile> {
  const file = await openPrivateStream(path, 'a', 'log file');
  let failure: OutputError | null = null;
  file.on('error', (error: NodeJS.ErrnoException) => {
    failure ??= new OutputError('log_write_failed', `cannot write the log file ${path}: ${describeFsError(error)}`, {
      cause: error,
    });
  });
  let partial = '';
  const stream = new Writable({
    write(chunk: Buffer | string, _encoding, done) {
      const text = partial + chunk.toString();
      const lines = text.split('\n');
      partial = lines.pop() ?? '';
      const stamped = lines.map((line) => `${now().toISOString()} ${line}\n`).join('');
      if (stamped === '' || file.write(stamped)) done();
      else file.once('drain', () => done());
    },
  });
  return {
    stream,
    close: async () => {
      if (!file.destroyed) {
        if (partial !== '') file.write(`${now().toISOString()} ${partial}\n`);
        file.end();
      }
      // A write that failed has already closed the file: waiting for a 'close' event that
      // came and went would leave nothing for the process to do, and it would end silently.
      await finished(file).catch(() => undefined);
      if (failure) throw failure;
    },
  };
}
