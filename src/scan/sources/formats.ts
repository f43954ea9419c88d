import { MEMBER_SEPARATOR } from './member-path.js';

/**
 * The archive formats a scan reads in place, each with the names that say it and the source
 * that reads it (loaded when the first archive of its kind is met: a folder's scan loads no
 * archive reader). A new format is a new source file (sources/*.ts) and a row here.
 */
const ARCHIVE_FORMATS = [
  { kind: 'zip', suffixes: ['.zip'], load: () => import('./zip.js') },
  { kind: 'tgz', suffixes: ['.tgz', '.tar.gz'], load: () => import('./tar.js') },
  { kind: 'tar', suffixes: ['.tar'], load: () => import('./tar.js') },
] as const;

const LONGEST_SUFFIX = Math.max(...ARCHIVE_FORMATS.flatMap((format) => format.suffixes.map((suffix) => suffix.length)));

/** The archive formats a scan reads in place. */
export type ArchiveKind = (typeof ARCHIVE_FORMATS)[number]['kind'];

/** The archive kind a file name says, or null for any other file. */
export function archiveKindOf(name: string): ArchiveKind | null {
  // Only the end can name a format: a member's long path is not lowercased whole.
  const lower = name.slice(-LONGEST_SUFFIX).toLowerCase();
  for (const format of ARCHIVE_FORMATS)
    if (format.suffixes.some((suffix) => lower.endsWith(suffix))) return format.kind;
  return null;
}

/** The source module that reads an archive of this kind (loaded once; each gives `openSource`, source.ts). */
export function loadArchiveSource(kind: ArchiveKind) {
  return ARCHIVE_FORMATS.find((format) => format.kind === kind)!.load();
}

/** What a scan root is: a folder (walked), an archive (read in place) or any other file (read as it is). */
export type RootKind = 'folder' | 'archive' | 'file';

/** The kind of a root by its stats and name: the one rule the scan, its count and `sync --watch` share. */
export function rootKindOf(root: string, stats: { isFile(): boolean }): RootKind {
  if (!stats.isFile()) return 'folder';
  return archiveKindOf(root) === null ? 'file' : 'archive';
}

/**
 * Splits `…/x.zip!/member` at the first separator that follows an archive name; null for a
 * path that names no member. Used only for paths the scan built itself.
 */
export function splitMemberPath(absPath: string): { archive: string; member: string } | null {
  for (let at = absPath.indexOf(MEMBER_SEPARATOR); at > 0; at = absPath.indexOf(MEMBER_SEPARATOR, at + 1)) {
    const archive = absPath.slice(0, at);
    if (archiveKindOf(archive) !== null) return { archive, member: absPath.slice(at + MEMBER_SEPARATOR.length) };
  }
  return null;
}

/**
 * Where the innermost member's path starts in `…/x.zip!/y.zip!/member` (at the `/` after its
 * `!`), or 0 for a path that names no member: only a `!/` after an archive's name separates,
 * so a folder named `Wow!` is a folder.
 */
export function innermostMemberStart(path: string): number {
  for (let at = path.lastIndexOf(MEMBER_SEPARATOR); at > 0; at = path.lastIndexOf(MEMBER_SEPARATOR, at - 1))
    if (archiveKindOf(path.slice(Math.max(0, at - LONGEST_SUFFIX), at)) !== null) return at + 1;
  return 0;
}

/** One segment of a path cut at `/`: `part.zip!` (an archive holding members) is `part.zip`; any other is itself. */
export function archiveSegmentName(segment: string): string {
  return segment.endsWith('!') && archiveKindOf(segment.slice(0, -1)) !== null ? segment.slice(0, -1) : segment;
}

/** An archive given to the scan (or met in a folder with `--archives`). */
export interface ArchiveRoot {
  absPath: string;
  kind: ArchiveKind;
  /** The archive's size and time when its root was just stat'ed (not stat'ed again); absent for one a walk found. */
  stat?: ArchiveStat;
}

/** What a run needs of an archive's stats. */
export interface ArchiveStat {
  size: number;
  mtimeMs: number;
}

/** The archive a path names by its extension, or null for any other file. */
export function archiveRootOf(absPath: string): ArchiveRoot | null {
  const kind = archiveKindOf(absPath);
  return kind === null ? null : { absPath, kind };
}
