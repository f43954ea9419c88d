import type { Command } from 'commander';
import type { CliContext } from '../context.js';
import { CamrollError } from '../../errors.js';

/** Placeholder until the command lands. */
export function registerServe(program: Command, _ctx: CliContext): void {
  program
    .command('serve')
    .description('(not yet available)')
    .action(() => {
      throw new CamrollError('not_implemented', 'serve is not implemented yet');
    });
}
