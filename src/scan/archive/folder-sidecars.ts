import * as fsp from 'node:fs/promises';
import path from 'node:path';
import { createExcludeMatcher } from '../exclude.js';
import { classifyName } from '../classify.js';
import { pickCandidate, takeoutJsonCandidates, xmpCandidates } from '../extract/sidecar-names.js';
import { readSidecarText } from '../extract/sidecars.js';
import { treeKey } from '../tree.js';
import type { WalkFile } from '../sources/source.js';
import { folderKey, type MatchedSidecars, type SidecarIndex } from './sidecar-index.js';

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
            if (classifyName(entry.name, 'folder').kind === 'folder')
              stack.push({ abs: path.join(folder.abs, entry.name), rel });
          } else if (entry.isFile() && classifyName(entry.name, 'file').kind === 'sidecar') {
            const text = await readSidecar(path.join(folder.abs, entry.name));
            if (text !== null) options.index.add(rel, text, folder.abs);
          }
        }
      } catch {
        // A folder that stops reading half-way: what was listed stays.
      }
    }
  }
}

/**
 * Adds the sidecars beside files named on their own (a watch's changed files) to the run's
 * tree under each file's key, the texts read now: the file's own folder wins over an
 * archive's, as in the run's first scan, a sidecar edited since is read as it is now, and
 * one deleted since is dropped from the tree. Reads only the sidecars that belong to the
 * named files, each folder listed once.
 */
export async function indexNamedSidecars(options: {
  files: { absPath: string; key: string }[];
  index: SidecarIndex;
}): Promise<void> {
  const listings = new Map<string, Map<string, string>>();
  for (const file of options.files) {
    const folder = path.dirname(file.absPath);
    const { dir, base } = folderKey(file.key);
    let listing = listings.get(folder);
    if (!listing) {
      listings.set(folder, (listing = await listSidecars(folder)));
      options.index.forget(dir, folder, listing); // one deleted since is not applied
    }
    if (listing.size === 0) continue;
    for (const candidates of [takeoutJsonCandidates(base), xmpCandidates(base)]) {
      const name = pickCandidate(candidates, listing);
      const text = name === null ? null : await readSidecar(path.join(folder, name));
      if (text !== null) options.index.add(dir === '' ? name! : `${dir}/${name}`, text, folder);
    }
  }
}

/** A folder's sidecar names by lower-case name (empty when it cannot be listed). */
async function listSidecars(folder: string): Promise<Map<string, string>> {
  const listing = new Map<string, string>();
  try {
    for await (const entry of await fsp.opendir(folder, { bufferSize: 256 })) {
      if (entry.isFile() && classifyName(entry.name, 'file').kind === 'sidecar')
        listing.set(entry.name.toLowerCase(), entry.name);
    }
  } catch {
    // The read reports what it cannot read.
  }
  return listing;
}

/** A folder sidecar's text, or null when it cannot be read (the folder's own read reports that). */
function readSidecar(file: string): Promise<string | null> {
  return readSidecarText(file).catch(() => null);
}

/** Reads a folder's file with the sidecars the tree matched to it (none: its folder's, as usual). */
export function useTreeSidecars(file: WalkFile, matched: MatchedSidecars): void {
  if (matched.print === '') return;
  file.sidecarFingerprint = `${file.sidecarFingerprint}|${matched.print}`;
  // Read by the folder reader, with these sidecars in place of its folder's.
  file.treeTask = { absPath: file.absPath, sidecars: { takeout: matched.takeout, xmp: matched.xmp } };
}

/**
 * Files named as roots, when the run's tree holds sidecars (a watch's changed files beside
 * archives): each is looked up under the key the run's walk gave it (its path below the run's
 * folder that holds it; its name when it is a root itself), its own folder's sidecars first
 * read into the tree as they are now.
 */
export async function withNamedTreeSidecars(
  files: WalkFile[],
  index: SidecarIndex,
  runRoots: readonly string[],
): Promise<void> {
  const keyed = files.map((file) => ({ file, absPath: file.absPath, key: treeKey(file.absPath, runRoots) }));
  await indexNamedSidecars({ files: keyed, index });
  for (const { file, key } of keyed) useTreeSidecars(file, index.find(key, path.dirname(file.absPath)));
}
