import { CommanderError } from 'commander';
import { CamrollError, InterruptedError, UsageError } from '../errors.js';

export const EXIT_OK = 0;
export const EXIT_FAILURE = 1;
export const EXIT_USAGE = 2;
export const EXIT_INTERRUPTED = 130;

/** The one mapping from a thrown error to a process exit code. */
export function exitCodeFor(error: unknown): number {
  if (error instanceof CommanderError) {
    if (error.code === 'commander.helpDisplayed' || error.code === 'commander.version') return EXIT_OK;
    // Help asked for (`camroll help`) exits 0; help shown because a command was missing
    // (`camroll`, `camroll users`, `camroll help nope`) is a usage error.
    if (error.code === 'commander.help') return error.exitCode === 0 ? EXIT_OK : EXIT_USAGE;
    return EXIT_USAGE;
  }
  if (error instanceof UsageError) return EXIT_USAGE;
  if (error instanceof InterruptedError) return EXIT_INTERRUPTED;
  return EXIT_FAILURE;
}

/** A one-line message for stderr; the code is there so support can search for it. */
export function describeError(error: unknown): string {
  if (error instanceof CamrollError) return `${error.message} [${error.code}]`;
  if (error instanceof Error) return error.message;
  return String(error);
}
