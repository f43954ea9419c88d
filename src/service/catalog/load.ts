import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { InternalError, StartupError } from '../../errors.js';
import { parseCatalog } from './parse.js';
import type { Catalog } from './types.js';

/** Where the bundled demo catalog lives, relative to the package root. */
export const DEMO_CATALOG_RELATIVE_PATH = join('fixtures', 'demo-catalog.json');

/**
 * The package root: the nearest folder above this module holding package.json. Walking up
 * works from src/ (tsx, vitest) and from dist/ alike.
 */
export function packageRoot(fromUrl: string = import.meta.url): string {
  let dir = dirname(fileURLToPath(fromUrl));
  for (;;) {
    if (existsSync(join(dir, 'package.json'))) return dir;
    const parent = dirname(dir);
    if (parent === dir) throw new InternalError('cannot find the camroll package root');
    dir = parent;
  }
}

/** Absolute path of the bundled demo catalog. */
export function demoCatalogPath(): string {
  return join(packageRoot(), DEMO_CATALOG_RELATIVE_PATH);
}

/** Reads and validates a catalog file; no path means the bundled demo catalog. */
export async function loadCatalog(path?: string): Promise<Catalog> {
  const file = path ?? demoCatalogPath();
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw new StartupError('invalid_catalog', `cannot read catalog ${file}: ${(error as Error).message}`, {
      cause: error,
    });
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new StartupError('invalid_catalog', `catalog ${file} is not valid JSON: ${(error as Error).message}`, {
      cause: error,
    });
  }
  // Parsed here and held by no one else: its events are adopted, not copied.
  return parseCatalog(json, { adopt: true });
}
