import { CommanderError } from 'commander';
import { InterruptedError, toCamrollError, UsageError } from '../errors.js';
import { nextStep } from './hints.js';

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

/**
 * A one-line message for stderr; the code is there so support can search for it. Anything
 * that is not a CamrollError (a validator's or the runtime's own error) is an internal error
 * in one line: never a dump of zod issues or a bare "Maximum call stack size exceeded".
 */
export function describeError(error: unknown): string {
  const known = toCamrollError(error);
  return `${known.message} [${known.code}]`;
}

const REPORT_HINT = 'this is a bug in camroll: please report it with the command you ran and this message';

/** Commander's outcomes that are not failures, or whose output (help) is already printed. */
function isQuietCommanderExit(error: CommanderError): boolean {
  return ['commander.helpDisplayed', 'commander.version', 'commander.help'].includes(error.code);
}

/**
 * What a failed run prints on stderr, in one style for every error: `camroll: <what> [code]`,
 * then any further lines (a suggestion, a next step). Commander's own errors ("error: unknown
 * option …") come through here too, as usage errors with a pointer to the command's help.
 * Returns null when nothing is to be printed (help and version output).
 */
export function describeFailure(error: unknown, command: string | undefined): string | null {
  if (error instanceof CommanderError) {
    if (isQuietCommanderExit(error)) return null;
    const [first = '', ...rest] = error.message
      .replace(/^error: /, '')
      .split('\n')
      .filter((line) => line.trim() !== '');
    const help =
      command === undefined || error.code === 'commander.unknownCommand'
        ? 'camroll --help'
        : `camroll ${command} --help`;
    return (
      [`camroll: ${first} [usage_error]`, ...rest.map((line) => `  ${line}`), `  see \`${help}\``].join('\n') + '\n'
    );
  }
  const lines = [`camroll: ${describeError(error)}`];
  const step = nextStep(error) ?? (toCamrollError(error).code === 'internal_error' ? REPORT_HINT : null);
  if (step !== null) lines.push(...step.split('\n').map((line) => `  ${line}`));
  if (error instanceof UsageError && command !== undefined) lines.push(`  see \`camroll ${command} --help\``);
  return `${lines.join('\n')}\n`;
}
