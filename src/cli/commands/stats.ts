import type { Command } from 'commander';
import type { CliContext } from '../context.js';
import { CamrollError } from '../../errors.js';

/** Placeholder until the command lands. */
export function registerStats(program: Command, _ctx: CliContext): void {
  program
    .command('stats')
    .description('(not yet available)')
    .action(() => {
      throw new CamrollError('not_implemented', 'stats is not implemented yet');
    });
}
