import { chmodSync, mkdirSync, statSync } from 'node:fs';

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

/**
 * Makes a folder camroll keeps its own state in (the configuration, with the key) readable by
 * its owner only: created 0700 (with any missing parents), and narrowed to 0700 when it
 * existed wider (made by an older camroll, or by a library that follows the umask).
 */
export function ensurePrivateFolder(path: string): void {
  mkdirSync(path, { recursive: true, mode: 0o700 });
  if ((statSync(path).mode & 0o077) !== 0) chmodSync(path, 0o700);
}
