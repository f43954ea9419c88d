// Not the config barrel: it loads conf, which only a write needs (src/config/reader.ts).
import { createConfigReader, type ConfigReader } from '../config/reader.js';
import type { CliContext } from './context.js';

const readers = new WeakMap<CliContext, ConfigReader>();

/**
 * The configuration file as this command reads it: one reader per command (per context), so
 * the file is read and checked once however many parts of the command need a setting (the
 * target, the directory's legacy ids, a hint naming a profile). Writes go through a store made
 * with this reader (`createConfigStore({ reader })`), which makes it read the file again.
 */
export function commandConfig(ctx: CliContext): ConfigReader {
  let reader = readers.get(ctx);
  if (reader === undefined) {
    reader = createConfigReader({ cwd: ctx.paths.config });
    readers.set(ctx, reader);
  }
  return reader;
}
