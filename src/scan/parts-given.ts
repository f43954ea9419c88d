import * as fsp from 'node:fs/promises';
import path from 'node:path';
import { archiveKindOf } from './sources/formats.js';
import { describeMissing, findPartGaps, type PartGap } from './export-parts.js';
import type { ScanEvent } from './types.js';

/** The warning a scan gives for each export whose parts given leave gaps (export-parts.ts). */
export const MISSING_PARTS = 'missing_parts';

/**
 * The exports whose parts a run was given with gaps: the parts are the roots themselves (a
 * part's zip, or the folder it was unzipped into) and, for a folder given, the parts lying
 * directly in it (its folders; its archives only when the run opens them, `--archives`).
 * Lists names only.
 */
export async function partGapsOf(roots: readonly string[], options: { archives: boolean }): Promise<PartGap[]> {
  const names: string[] = [];
  for (const root of roots) {
    names.push(path.basename(root));
    let entries: import('node:fs').Dirent[];
    try {
      entries = await fsp.readdir(root, { withFileTypes: true });
    } catch {
      continue; // a file, or a folder the walk reports as unreadable
    }
    for (const entry of entries)
      if (entry.isDirectory() || (options.archives && entry.isFile() && archiveKindOf(entry.name) !== null))
        names.push(entry.name);
  }
  return findPartGaps(names);
}

/** One `missing_parts` warning per export with gaps, its path the export's name, its message the numbers missing. */
export function partGapWarnings(gaps: readonly PartGap[]): ScanEvent[] {
  return gaps.map((gap) => ({
    type: 'warning',
    code: MISSING_PARTS,
    path: gap.label,
    message: describeMissing(gap),
  }));
}
