import { chmodSync, statSync } from 'node:fs';

/**
 * Makes a file that holds user data (a database, its WAL) readable by its owner only, also
 * when it existed with wider permissions. Anything that is not a regular file (`:memory:`, a
 * device) is left alone.
 */
export function restrictToOwner(...paths: string[]): void {
  for (const path of paths) {
    try {
      if (statSync(path).isFile()) chmodSync(path, 0o600);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
  }
}
