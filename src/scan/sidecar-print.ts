import { createHash } from 'node:crypto';
import type { Stats } from 'node:fs';
import * as fsp from 'node:fs/promises';
import path from 'node:path';
import { classifyName } from './classify.js';

/** Stats at most this many sidecars at once (libuv's pool runs four). */
const STAT_CONCURRENCY = 32;

/**
 * The fingerprint of a folder's sidecars from their names, sizes and mtimes, in any order
 * ('' when there is none): the scan cache keys a folder's media on it, so editing, adding or
 * removing a sidecar re-reads the media beside it. Stats run concurrently, off the main thread.
 */
export async function sidecarFingerprint(
  dir: string,
  names: readonly string[],
  stat: (file: string) => Promise<Stats> = fsp.stat,
): Promise<string> {
  if (names.length === 0) return '';
  const parts: string[] = [];
  for (let start = 0; start < names.length; start += STAT_CONCURRENCY) {
    const chunk = names.slice(start, start + STAT_CONCURRENCY);
    const described = await Promise.all(
      chunk.map((name) =>
        stat(path.join(dir, name)).then(
          (stats) => `${name}:${stats.size}:${stats.mtimeMs}`,
          () => `${name}:?`,
        ),
      ),
    );
    parts.push(...described);
  }
  // Sorted: the listing order of a folder is not stable across file systems or edits.
  return createHash('sha1').update(parts.sort().join('\n')).digest('base64url');
}

/** The sidecar fingerprint of `dir` for a file named on its own (the walk computes it per folder). */
export async function folderSidecarFingerprint(dir: string): Promise<string> {
  // Listed entry by entry: only the sidecar names are held, however large the folder.
  const names: string[] = [];
  try {
    for await (const entry of await fsp.opendir(dir, { bufferSize: 256 })) {
      if (!entry.isSymbolicLink() && classifyName(entry.name, 'file').kind === 'sidecar') names.push(entry.name);
    }
  } catch {
    return '';
  }
  return sidecarFingerprint(dir, names);
}
