import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/**
 * A piscina worker file `name` (without extension) next to the module at `moduleUrl`: the
 * compiled `.cjs` in dist/, or, run from TypeScript sources (tests, benches), the `.cts`
 * through tsx. Worker entries are CommonJS on purpose (see src/scan/worker-entry.cts).
 */
export function threadEntry(moduleUrl: string, name: string): { filename: string; execArgv: string[] } {
  const compiled = new URL(`./${name}.cjs`, moduleUrl);
  if (existsSync(fileURLToPath(compiled))) return { filename: compiled.href, execArgv: [] };
  return { filename: new URL(`./${name}.cts`, moduleUrl).href, execArgv: ['--import', 'tsx'] };
}
