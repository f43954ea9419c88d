import type { Command } from 'commander';
import type { CliContext } from '../context.js';
import { CamrollError } from '../../errors.js';

/** Placeholder until the command lands. */
export function registerConfig(program: Command, _ctx: CliContext): void {
  program
    .command('config')
    .description('(not yet available)')
    .action(() => {
      throw new CamrollError('not_implemented', 'config is not implemented yet');
    });
}
