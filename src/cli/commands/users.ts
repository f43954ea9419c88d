import type { Command } from 'commander';
import type { CliContext } from '../context.js';
import { CamrollError } from '../../errors.js';

/** Placeholder until the command lands. */
export function registerUsers(program: Command, _ctx: CliContext): void {
  program
    .command('users')
    .description('(not yet available)')
    .action(() => {
      throw new CamrollError('not_implemented', 'users is not implemented yet');
    });
}
