import * as fsp from 'node:fs/promises';
import path from 'node:path';
import { createExcludeMatcher } from '../exclude.js';
import { fileSkipReason, folderSkipReason, isSidecarName } from '../junk.js';
import type { SidecarIndex } from './sidecar-index.js';

/** A sidecar larger than this is not one camroll reads (as sidecars.ts). */
const MAX_SIDECAR_BYTES = 4 * 1024 * 1024;

/**
 * Adds the sidecars of folders given beside archives to the run's tree, keyed by their path
 * relative to their folder: part 1 of an export unpacked into a folder and part 2 still
 * zipped are one tree, as if both were zips. Lists names only (no stats), never opens a
 * folder the walk skips, and reads only `.json`/`.xmp` files.
 */
export async function indexFolderSidecars(options: {
  roots: string[];
  exclude?: string[];
  index: SidecarIndex;
  signal?: AbortSignal;
}): Promise<void> {
  const excluded = createExcludeMatcher(options.exclude ?? []);
  for (const root of options.roots) {
    const stack: { abs: string; rel: string }[] = [{ abs: root, rel: '' }];
    while (stack.length > 0) {
      if (options.signal?.aborted) return;
      const folder = stack.pop()!;
      let handle: Awaited<ReturnType<typeof fsp.opendir>>;
      try {
        handle = await fsp.opendir(folder.abs, { bufferSize: 1024 });
      } catch {
        continue; // the walk reports what it cannot read
      }
      try {
        for await (const entry of handle) {
          const rel = folder.rel === '' ? entry.name : `${folder.rel}/${entry.name}`;
          if (excluded?.(rel)) continue;
          if (entry.isDirectory()) {
            if (!folderSkipReason(entry.name)) stack.push({ abs: path.join(folder.abs, entry.name), rel });
          } else if (entry.isFile() && isSidecarName(entry.name) && !fileSkipReason(entry.name)) {
            const text = await readSidecar(path.join(folder.abs, entry.name));
            if (text !== null) options.index.add(rel, text);
          }
        }
      } catch {
        // A folder that stops reading half-way: what was listed stays.
      }
    }
  }
}

async function readSidecar(file: string): Promise<string | null> {
  try {
    const handle = await fsp.open(file, 'r');
    try {
      const buffer = Buffer.alloc(Math.min((await handle.stat()).size, MAX_SIDECAR_BYTES));
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
      return buffer.subarray(0, bytesRead).toString('utf8');
    } finally {
      await handle.close();
    }
  } catch {
    return null;
  }
}
