import type { Command } from 'commander';
import type { CliContext } from '../context.js';
import { CamrollError } from '../../errors.js';

/** Placeholder until the command lands. */
export function registerPing(program: Command, _ctx: CliContext): void {
  program
    .command('ping')
    .description('(not yet available)')
    .action(() => {
      throw new CamrollError('not_implemented', 'ping is not implemented yet');
    });
}
