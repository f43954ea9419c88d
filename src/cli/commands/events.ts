import type { Command } from 'commander';
import type { CliContext } from '../context.js';
import { CamrollError } from '../../errors.js';

/** Placeholder until the command lands. */
export function registerEvents(program: Command, _ctx: CliContext): void {
  program
    .command('events')
    .description('(not yet available)')
    .action(() => {
      throw new CamrollError('not_implemented', 'events is not implemented yet');
    });
}
