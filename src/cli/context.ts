import type { Readable, Writable } from 'node:stream';
import type { AppPaths } from '../paths.js';
import { emit } from './output/emit.js';

/** Everything a command needs from its surroundings, passed in so tests can run commands in-process. */
export interface CliContext {
  /** Standard input (`config set-key` reads the key from it); `isTTY` tells a terminal from a pipe. */
  readonly stdin: Readable & { isTTY?: boolean };
  readonly stdout: Writable;
  readonly stderr: Writable;
  readonly env: NodeJS.ProcessEnv;
  /** Where state is kept (data, cache, config), resolved once from the environment by `main`. */
  readonly paths: AppPaths;
  readonly cwd: string;
  /** Aborted on SIGINT/SIGTERM: long commands stop cleanly and leave their state consistent. */
  readonly signal: AbortSignal;
  /** Whether stderr is an interactive terminal (progress bars) or a pipe/file (plain lines). */
  readonly stderrIsTTY: boolean;
  /** A command raises this (e.g. to 1 when some files failed) without throwing. */
  exitCode: number;
}

/** Writes one line to a stream (through emit: above a live display's rows when one holds it). */
export function writeLine(stream: Writable, line = ''): void {
  emit(stream, `${line}\n`);
}
