/**
 * The roots a scan is given: resolved and checked, split by kind (files, folders, archives),
 * checked for an export's parts missing, and the one rule for the path each file below them
 * is shown under.
 */
import * as fs from 'node:fs';
import * as fsp from 'node:fs/promises';
import path from 'node:path';
import { UsageError } from '../errors.js';
import { describeMissing, findPartGaps, type PartGap } from './export-parts.js';
import { folderSidecarFingerprint } from './sidecar-print.js';
import { archiveKindOf, archiveRootOf, rootKindOf, splitMemberPath, type ArchiveRoot } from './sources/formats.js';
import { MEMBER_SEPARATOR } from './sources/member-path.js';
import type { WalkFile } from './sources/source.js';
import type { ScanEvent } from './types.js';

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

/** The roots a scan was given (resolved, absolute) and the folder it was run from. */
export interface DisplayBase {
  roots: readonly string[];
  cwd: string;
}

/**
 * The one rule for the path a file is shown under (summaries, warnings, `--jsonl`, reports,
 * `--watch`): relative to the root with one root, relative to the working folder with
 * several; `/`-separated on every platform. A root that is itself a file is shown by its name;
 * an archive's member as `ARCHIVE!/MEMBER`.
 */
export function displayPath(absPath: string, base: DisplayBase): string {
  // An archive's member: its archive as any file is shown (an archive given alone, as given),
  // then `!/` and the member's name as stored, never normalised.
  const member = splitMemberPath(absPath);
  if (member !== null) {
    const from = base.roots.length === 1 ? base.roots[0]! : base.cwd;
    const archive = member.archive === from ? asGiven(member.archive, base) : displayPath(member.archive, base);
    return `${archive}${MEMBER_SEPARATOR}${member.member}`;
  }
  const from = base.roots.length === 1 ? base.roots[0]! : base.cwd;
  return (path.relative(from, absPath) || path.basename(absPath)).split(path.sep).join('/');
}

/** A path as the user would find it from the working folder (a root given on the command line). */
export function asGiven(absPath: string, base: DisplayBase): string {
  return path.relative(base.cwd, absPath).split(path.sep).join('/') || '.';
}

/**
 * displayPath for walk notices, which may be about a root folder itself (one given on the
 * command line that cannot be read): that is named as the user would find it, never as an
 * empty path or a bare name.
 */
export function noticePathShower(base: DisplayBase): (absPath: string) => string {
  const from = base.roots.length === 1 ? base.roots[0]! : base.cwd;
  return (absPath) => (absPath === from ? asGiven(absPath, base) : displayPath(absPath, base));
}

/** The path a scanned record is shown under: with one root the scanner's own path is already it. */
export function recordDisplayPath(record: { path: string; absPath: string }, base: DisplayBase): string {
  return base.roots.length <= 1 ? record.path : displayPath(record.absPath, base);
}

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
