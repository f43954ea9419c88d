import * as fs from 'node:fs';
import path from 'node:path';
import { UsageError } from '../errors.js';
import { folderSidecarFingerprint } from './sidecar-print.js';
import { archiveKindOf, archiveRootOf, rootKindOf, type ArchiveRoot } from './sources/formats.js';
import type { WalkFile } from './sources/source.js';

/**
 * Absolute, existing folders or files (UsageError otherwise); a folder or file inside another
 * given folder is dropped, so each file is read once. The CLI calls it first to fail before
 * any work. A file is read whatever its name (support's "why didn't this photo match?").
 */
export function resolveScanRoots(roots: string[], cwd: string): string[] {
  if (roots.length === 0) throw new UsageError('no folder to scan');
  const resolved: string[] = [];
  const files = new Set<string>();
  for (const root of roots) {
    const absolute = path.resolve(cwd, root);
    let stats: fs.Stats;
    try {
      stats = fs.statSync(absolute);
    } catch {
      throw new UsageError(`no such folder or file: ${root}`);
    }
    if (!stats.isDirectory() && !stats.isFile()) throw new UsageError(`not a folder or a file: ${root}`);
    if (stats.isFile()) files.add(absolute);
    resolved.push(absolute);
  }
  const sorted = [...new Set(resolved)].sort();
  // An archive named inside a given folder stays: the walk only counts archives (without --archives).
  const isArchive = (root: string): boolean => archiveKindOf(root) !== null && files.has(root);
  return sorted.filter((root, i) => isArchive(root) || !sorted.slice(0, i).some((outer) => isInside(outer, root)));
}

/** A scan's roots by kind. */
export interface SplitRoots {
  /** Files named on their own: read as they are, whatever their name. */
  files: WalkFile[];
  folders: string[];
  archives: ArchiveRoot[];
}

/**
 * Files named on the command line are read as they are (whatever their name), except
 * archives (`.zip`, `.tar`, `.tgz`/`.tar.gz`), whose members are read in place; folders are walked.
 */
export async function splitRoots(roots: string[]): Promise<SplitRoots> {
  const split: SplitRoots = { files: [], folders: [], archives: [] };
  for (const root of roots) {
    const stats = await fs.promises.stat(root);
    const kind = rootKindOf(root, stats);
    if (kind === 'folder') split.folders.push(root);
    // Its size and time go with it: the archive source does not stat it again.
    else if (kind === 'archive')
      split.archives.push({ ...archiveRootOf(root)!, stat: { size: stats.size, mtimeMs: stats.mtimeMs } });
    else
      split.files.push({
        type: 'file',
        path: path.basename(root),
        absPath: root,
        size: stats.size,
        mtimeMs: stats.mtimeMs,
        ino: stats.ino,
        sidecarFingerprint: await folderSidecarFingerprint(path.dirname(root)),
      });
  }
  return split;
}

/** Whether `inner` lies below `outer` (also when `outer` is the file-system root). */
export function isInside(outer: string, inner: string): boolean {
  const relative = path.relative(outer, inner);
  return relative !== '' && relative.split(path.sep)[0] !== '..' && !path.isAbsolute(relative);
}
