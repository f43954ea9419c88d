import type { Dirent } from 'node:fs';
import path from 'node:path';
import { createExcludeMatcher } from './exclude.js';
import { classifyName, entryKind } from './classify.js';
import { walkFs, type WalkOptions } from './walk.js';

/** Entries read per system call: the count holds nothing, so it reads in large steps. */
const READ_AHEAD = 1024;

/**
 * Counts the media files under the roots as the walk will find them, by listing alone (a
 * plain file is counted on its name; only symlinks are examined). It runs ahead of the walk,
 * which goes at the pace of hashing, so progress shows a real total, rate and ETA early:
 * `onCount` gets the running count after each folder. It holds only the folders still to
 * list. Unreadable folders are left to the walk to report. Returns the final count.
 */
export async function countMediaFiles(options: WalkOptions, onCount: (files: number) => void): Promise<number> {
  const fs = walkFs(options.fs);
  const excluded = createExcludeMatcher(options.exclude ?? []);
  const follow = options.followSymlinks ?? false;
  const visited = new Set<string>();
  let files = 0;
  for (const root of options.roots) {
    const stack: { abs: string; rel: string }[] = [{ abs: root, rel: '' }];
    while (stack.length > 0) {
      if (options.signal?.aborted) return files;
      const folder = stack.pop()!;
      try {
        if (follow) {
          const stats = await fs.stat(folder.abs);
          const key = `${stats.dev}:${stats.ino}`;
          if (visited.has(key)) continue;
          visited.add(key);
        }
        const handle = await fs.opendir(folder.abs, { bufferSize: READ_AHEAD });
        try {
          for (let entry = await handle.read(); entry !== null; entry = await handle.read()) {
            const rel = folder.rel === '' ? entry.name : `${folder.rel}/${entry.name}`;
            if (excluded?.(rel)) continue;
            const kind = entryKind(entry.name, entry).kind;
            if (kind === 'media') files += 1;
            else if (kind === 'folder') stack.push({ abs: path.join(folder.abs, entry.name), rel });
            else if (kind === 'link') files += await countLink(entry, folder.abs, rel, { fs, follow, stack });
          }
        } finally {
          await handle.close().catch(() => undefined);
        }
      } catch {
        // The walk reports the folder it cannot read.
      }
      onCount(files);
    }
  }
  return files;
}

/** 1 for a symlinked media file; a followed symlinked folder goes on the stack. */
async function countLink(
  entry: Dirent,
  dir: string,
  rel: string,
  walk: { fs: ReturnType<typeof walkFs>; follow: boolean; stack: { abs: string; rel: string }[] },
): Promise<number> {
  const abs = path.join(dir, entry.name);
  try {
    const stats = await walk.fs.stat(abs);
    if (stats.isDirectory()) {
      if (walk.follow && classifyName(entry.name, 'folder').kind === 'folder') walk.stack.push({ abs, rel });
      return 0;
    }
    return stats.isFile() && classifyName(entry.name, 'file').kind === 'media' ? 1 : 0;
  } catch {
    return 0;
  }
}
