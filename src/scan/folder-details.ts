import { createReadStream } from 'node:fs';
import * as fsp from 'node:fs/promises';
import path from 'node:path';
import { isPhotoDetailsName, type PhotoDetails } from './archive/photo-details.js';
import { icloudFolderOf } from './export-parts.js';

/** How deep below a folder given an iCloud part's CSVs are looked for (`Part 1 of 3/iCloud Photos/Photos/`). */
const MAX_DEPTH = 6;

/** A CSV that could not be used: a warning naming it. */
export interface DetailsProblem {
  absPath: string;
  message: string;
}

/**
 * Reads the `Photo Details*.csv` of iCloud exports unzipped into folders (Safari unzips a
 * download where it lies) into the run's details before any file is walked, as a zip's are
 * read before its members: a folder given gives what its zips give. Only iCloud-shaped
 * folders are listed (a part's folder, or one whose name says iCloud: icloudFolderOf), found
 * among the folders given and their children; each CSV is streamed, keeping only the rows of
 * the photos those folders hold.
 */
export async function readFolderDetails(options: {
  roots: readonly string[];
  details: PhotoDetails;
  signal?: AbortSignal;
}): Promise<DetailsProblem[]> {
  const csvs: string[] = [];
  const names = new Set<string>();
  for (const root of options.roots) {
    const stack: { dir: string; depth: number }[] = [{ dir: root, depth: 0 }];
    while (stack.length > 0) {
      if (options.signal?.aborted) return [];
      const { dir, depth } = stack.pop()!;
      const inExport = depth > 0 || icloudFolderOf(path.join(dir, '_')) !== null;
      let entries: import('node:fs').Dirent[];
      try {
        entries = await fsp.readdir(dir, { withFileTypes: true });
      } catch {
        continue; // the walk reports what it cannot read
      }
      for (const entry of entries) {
        const at = path.join(dir, entry.name);
        if (entry.isDirectory()) {
          // Below an export every folder; elsewhere only a child of the folder given that is one
          // by its name (the others are never listed: a library's folders are the walk's to list).
          if (depth < MAX_DEPTH && (inExport || icloudFolderOf(path.join(at, '_')) !== null))
            stack.push({ dir: at, depth: depth + 1 });
        } else if (inExport && entry.isFile()) {
          if (isPhotoDetailsName(entry.name)) csvs.push(at);
          else names.add(entry.name.normalize('NFC').toLowerCase());
        }
      }
    }
  }
  const problems: DetailsProblem[] = [];
  for (const csv of csvs) {
    if (options.signal?.aborted) break;
    const problem = await options.details.read(createReadStream(csv, { highWaterMark: 256 * 1024 }), {
      part: icloudFolderOf(csv)!,
      wanted: (name) => names.has(name),
    });
    if (problem !== null) problems.push({ absPath: csv, message: problem });
  }
  return problems;
}
