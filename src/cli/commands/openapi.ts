import type { Command } from 'commander';
import type { CliContext } from '../context.js';
import { CamrollError } from '../../errors.js';

/** Placeholder until the command lands. */
export function registerOpenapi(program: Command, _ctx: CliContext): void {
  program
    .command('openapi')
    .description('(not yet available)')
    .action(() => {
      throw new CamrollError('not_implemented', 'openapi is not implemented yet');
    });
}
