import type { Command } from 'commander';
import type { CliContext } from '../context.js';
import { loadOpenApi } from '../lazy.js';

/** `camroll openapi`: the partner interface as an OpenAPI 3.1 document on stdout. */
export function registerOpenapi(program: Command, ctx: CliContext): void {
  program
    .command('openapi')
    .description('Print the partner interface as an OpenAPI 3.1 JSON document, generated from the contract schemas.')
    .action(async () => {
      const { buildOpenApiDocument } = await loadOpenApi();
      ctx.stdout.write(`${JSON.stringify(buildOpenApiDocument(), null, 2)}\n`);
    });
}
