import path from 'node:path';
import { createPhotoDetails, withPhotoDetails, type PhotoDetails } from './archive/photo-details.js';
import { createSidecarIndex, type SidecarIndex } from './archive/sidecar-index.js';
import { icloudFolderOf } from './export-parts.js';
import { isInside } from './roots.js';
import type { WalkEvent } from './sources/source.js';
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
