import { Command } from 'commander';
import type { CliContext } from './context.js';
import { VERSION } from '../version.js';
import { emit } from './output/emit.js';

type Register = (program: Command, ctx: CliContext) => void;

/**
 * Every command, in help order, with a loader for its module. Only the module of the
 * command being run is imported: each pulls in its own dependencies (the scanner, the
 * HTTP client, the embedded service), and loading them all cost every command ~0.3 s.
 */
const COMMANDS: ReadonlyArray<{ names: readonly string[]; load: () => Promise<Register> }> = [
  { names: ['scan'], load: async () => (await import('./commands/scan.js')).registerScan },
  { names: ['sync'], load: async () => (await import('./commands/sync.js')).registerSync },
  { names: ['users'], load: async () => (await import('./commands/users.js')).registerUsers },
  { names: ['events'], load: async () => (await import('./commands/events.js')).registerEvents },
  { names: ['stats'], load: async () => (await import('./commands/stats.js')).registerStats },
  { names: ['ping', 'health'], load: async () => (await import('./commands/ping.js')).registerPing },
  { names: ['doctor'], load: async () => (await import('./commands/doctor.js')).registerDoctor },
  { names: ['serve'], load: async () => (await import('./commands/serve.js')).registerServe },
  { names: ['config'], load: async () => (await import('./commands/config.js')).registerConfig },
  { names: ['openapi'], load: async () => (await import('./commands/openapi.js')).registerOpenapi },
];

/** The command named on the command line (the first word that is not an option), if any. */
export function requestedCommand(argv: readonly string[]): string | undefined {
  return argv.slice(2).find((arg) => !arg.startsWith('-'));
}

/**
 * Builds the commander program for `argv`. Commands write through `ctx`, never to process
 * streams directly. With no known command (top-level help, a typo) every command is
 * registered, so help lists them all and suggestions work.
 */
export async function createProgram(ctx: CliContext, argv: readonly string[] = []): Promise<Command> {
  const program = new Command();
  const output = {
    writeOut: (s: string) => ctx.stdout.write(s),
    writeErr: (s: string) => emit(ctx.stderr, s),
    // Errors are printed once, in camroll's style, by run() (src/cli/main.ts).
    outputError: () => undefined,
  };
  program
    .name('camroll')
    .description('Scan a camera roll, match it to live events, and read the history and stats.')
    .version(VERSION)
    .showSuggestionAfterError()
    .configureOutput(output)
    .exitOverride();

  const name = requestedCommand(argv);
  const versionOnly = name === undefined && argv.some((arg) => arg === '-V' || arg === '--version');
  const wanted = COMMANDS.filter((command) => name !== undefined && command.names.includes(name));
  if (!versionOnly) {
    for (const command of wanted.length > 0 ? wanted : COMMANDS) (await command.load())(program, ctx);
  }

  // Subcommands inherit exitOverride and output settings only when set on each of them.
  const configure = (cmd: Command): void => {
    for (const sub of cmd.commands) {
      sub.exitOverride().configureOutput(output);
      configure(sub);
    }
  };
  configure(program);
  return program;
}
