import type { Command } from 'commander';
import type { CliContext } from '../context.js';
import { CamrollError } from '../../errors.js';

/** Placeholder until the command lands. */
export function registerSync(program: Command, _ctx: CliContext): void {
  program
    .command('sync <dir...>')
    .description('(not yet available)')
    .action(() => {
      throw new CamrollError('not_implemented', 'sync is not implemented yet');
    });
}
