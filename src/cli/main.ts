import { createProgram, requestedCommand } from './program.js';
import type { CliContext } from './context.js';
import { describeFailure, exitCodeFor, EXIT_INTERRUPTED } from './exit.js';
import { appPaths } from '../paths.js';
import { emit } from './output/emit.js';

/** A repeated interrupt within this window is the same one, re-raised by a library. */
const FORCE_EXIT_AFTER_MS = 500;

/**
 * Runs one camroll invocation in this process. The only place that sets the process exit
 * code; a second Ctrl-C exits at once.
 */
export async function main(argv: string[]): Promise<void> {
  const controller = new AbortController();
  let firstInterruptAt: number | null = null;
  const onSignal = (): void => {
    // conf's atomic writer (when-exit) re-raises the first SIGINT/SIGTERM at once; only a
    // second signal that comes later is the user insisting, and exits without cleanup.
    if (firstInterruptAt !== null) {
      if (Date.now() - firstInterruptAt > FORCE_EXIT_AFTER_MS) process.exit(EXIT_INTERRUPTED);
      return;
    }
    firstInterruptAt = Date.now();
    controller.abort();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  // A reader that goes away (`camroll events --json | head -1`) is not a failure: the rest of
  // the output is dropped and the command finishes its work, with no stack trace.
  process.stdout.on('error', ignoreClosedReader);
  process.stderr.on('error', ignoreClosedReader);

  const ctx: CliContext = {
    stdin: process.stdin,
    stdout: process.stdout,
    stderr: process.stderr,
    env: process.env,
    paths: appPaths(),
    cwd: process.cwd(),
    signal: controller.signal,
    // TERM=dumb: a terminal that cannot redraw bars gets plain lines, like a pipe.
    stderrIsTTY: Boolean(process.stderr.isTTY) && process.env.TERM !== 'dumb',
    exitCode: 0,
  };
  process.exitCode = await run(ctx, argv);
  process.off('SIGINT', onSignal);
  process.off('SIGTERM', onSignal);
}

function ignoreClosedReader(error: NodeJS.ErrnoException): void {
  if (error.code !== 'EPIPE') throw error;
}

/** Runs the program against a context and returns the exit code (testable in-process). */
export async function run(ctx: CliContext, argv: string[]): Promise<number> {
  try {
    await (await createProgram(ctx, argv)).parseAsync(argv);
    return ctx.exitCode;
  } catch (error) {
    // Every failure, commander's own included, is printed here in one style.
    const message = describeFailure(error, requestedCommand(argv));
    if (message !== null) emit(ctx.stderr, message);
    return exitCodeFor(error);
  }
}
