/** The archive formats a scan reads in place. */
export type ArchiveKind = 'zip' | 'tar' | 'tgz';

/** The archive kind a file name says, or null for any other file. */
export function archiveKindOf(name: string): ArchiveKind | null {
  const lower = name.toLowerCase();
  if (lower.endsWith('.zip')) return 'zip';
  if (lower.endsWith('.tgz') || lower.endsWith('.tar.gz')) return 'tgz';
  if (lower.endsWith('.tar')) return 'tar';
  return null;
}

/** What a scan root is: a folder (walked), an archive (read in place) or any other file (read as it is). */
export type RootKind = 'folder' | 'archive' | 'file';

/** The kind of a root by its stats and name: the one rule the scan, its count and `sync --watch` share. */
export function rootKindOf(root: string, stats: { isFile(): boolean }): RootKind {
  if (!stats.isFile()) return 'folder';
  return archiveKindOf(root) === null ? 'file' : 'archive';
}

/**
 * Between an archive's path and a member's name in the paths a scan shows (`--jsonl`,
 * reports): `takeout-001.zip!/Takeout/Google Photos/IMG_1.jpg`, as Java's `jar:` URLs
 * write it. The member's name follows as it is stored (never normalised: `..` stays a name).
 */
export const MEMBER_SEPARATOR = '!/';

/** `archive!/member`: the path of a member (the archive's path as given, the member's name as stored). */
export function memberPath(archive: string, member: string): string {
  return `${archive}${MEMBER_SEPARATOR}${member}`;
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
