import { Command } from 'commander';
import type { CliContext } from './context.js';
import { registerConfig } from './commands/config.js';
import { registerEvents } from './commands/events.js';
import { registerOpenapi } from './commands/openapi.js';
import { registerPing } from './commands/ping.js';
import { registerScan } from './commands/scan.js';
import { registerServe } from './commands/serve.js';
import { registerStats } from './commands/stats.js';
import { registerSync } from './commands/sync.js';
import { registerUsers } from './commands/users.js';
import { VERSION } from '../version.js';

/** Builds the commander program. Commands write through `ctx`, never to process streams directly. */
export function createProgram(ctx: CliContext): Command {
  const program = new Command();
  program
    .name('camroll')
    .description('Scan a camera roll, match it to live events, and read the history and stats.')
    .version(VERSION)
    .showSuggestionAfterError()
    .configureOutput({
      writeOut: (s) => ctx.stdout.write(s),
      writeErr: (s) => ctx.stderr.write(s),
    })
    .exitOverride();

  registerScan(program, ctx);
  registerSync(program, ctx);
  registerUsers(program, ctx);
  registerEvents(program, ctx);
  registerStats(program, ctx);
  registerPing(program, ctx);
  registerServe(program, ctx);
  registerConfig(program, ctx);
  registerOpenapi(program, ctx);

  // Subcommands inherit exitOverride and output settings only when set on each of them.
  const configure = (cmd: Command): void => {
    for (const sub of cmd.commands) {
      sub.exitOverride().configureOutput({
        writeOut: (s) => ctx.stdout.write(s),
        writeErr: (s) => ctx.stderr.write(s),
      });
      configure(sub);
    }
  };
  configure(program);
  return program;
}
