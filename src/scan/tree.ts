/**
 * The run's sidecar tree: every archive part's sidecars, and those of folders and files given
 * beside them, keyed by path below their part, so a Takeout JSON in one part meets its photo
 * in another; what a record takes from it at the end (late sidecars, iCloud's details).
 */
import * as fsp from 'node:fs/promises';
import path from 'node:path';
import { createPhotoDetails, withPhotoDetails, type PhotoDetails } from './archive/photo-details.js';
import { createSidecarIndex, folderKey, type MatchedSidecars, type SidecarIndex } from './archive/sidecar-index.js';
import { classifyName, type ExcludeMatcher } from './classify.js';
import { icloudFolderOf } from './export-parts.js';
import { pickCandidate, takeoutJsonCandidates, xmpCandidates } from './extract/sidecar-names.js';
import { readSidecarText } from './extract/sidecars.js';
import { isInside } from './roots.js';
import type { WalkEvent, WalkFile } from './sources/source.js';
import type { ScanEvent, ScanRecord } from './types.js';

/** The sidecars of every archive part (and folders beside them) of one run: one tree. */
export interface SidecarTree {
  index: SidecarIndex;
  details: PhotoDetails;
  /**
   * Whether the run's plain files (not archive members) are read with the tree: decided by
   * the run's first scan (archives given as roots), so a later scan reads an unchanged file
   * with the sidecars the first one did (null until then). Archives found with `--archives`
   * only do not count: they open mid-walk, after most folder files were read.
   */
  plainFiles: boolean | null;
}

/** An empty tree for a run whose later scans share it (ScanOptions.tree). */
export function createSidecarTree(): SidecarTree {
  return { index: createSidecarIndex(), details: createPhotoDetails(), plainFiles: null };
}

/** A file's key in the run's tree: its path below the run's folder that holds it, as the walk lists it. */
export function treeKey(absPath: string, runRoots: readonly string[]): string {
  const root = runRoots.find((outer) => isInside(outer, absPath));
  return root === undefined ? path.basename(absPath) : path.relative(root, absPath).split(path.sep).join('/');
}

/** Records of members whose sidecar may come later (`late`) are held back (applyLateSidecars gives them it at the end). */
export function holdLate(events: ScanEvent[], late: ReadonlySet<string>, held: ScanRecord[]): ScanEvent[] {
  // A run of zips (or tars whose sidecars came first) holds nothing: no pass over the batch.
  if (late.size === 0) return events;
  const before = held.length;
  const kept: ScanEvent[] = [];
  for (const event of events) {
    if (event.type === 'record' && event.record.archive !== undefined && late.has(event.record.absPath))
      held.push(event.record);
    else kept.push(event);
  }
  return held.length === before ? events : kept;
}

/** iCloud's Photo Details CSV for members with no capture instant of their own (photo-details.ts). */
export function withDetails(events: ScanEvent[], details: PhotoDetails): ScanEvent[] {
  if (details.size === 0) return events;
  return events.map((event) =>
    event.type === 'record' ? { type: 'record', record: withPhotoDetails(event.record, details) } : event,
  );
}

/**
 * A folder's files that the iCloud export they lie in lists as deleted (Recently Deleted at
 * export time), skipped as `trashed` as a zip's members are.
 */
export async function* withoutDeleted(
  batches: AsyncIterable<WalkEvent[]>,
  details: PhotoDetails,
): AsyncGenerator<WalkEvent[]> {
  for await (const batch of batches) {
    if (details.size === 0) {
      yield batch;
      continue;
    }
    yield batch.map((event): WalkEvent => {
      if (event.type !== 'file' || event.member) return event;
      const part = icloudFolderOf(event.absPath);
      const deleted = part !== null && details.get(path.basename(event.absPath), part)?.deleted === true;
      return deleted ? { type: 'skipped', reason: 'trashed', absPath: event.absPath } : event;
    });
  }
}

/**
 * Adds the sidecars of folders given beside archives to the run's tree, keyed by their path
 * relative to their folder: part 1 of an export unpacked into a folder and part 2 still
 * zipped are one tree, as if both were zips. Lists names only (no stats), never opens a
 * folder the walk skips, and reads only `.json`/`.xmp` files.
 */
export async function indexFolderSidecars(options: {
  roots: string[];
  excluded: ExcludeMatcher | null;
  index: SidecarIndex;
  signal?: AbortSignal;
}): Promise<void> {
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
          if (options.excluded?.(rel)) continue;
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
async function indexNamedSidecars(options: {
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
