import picomatch from 'picomatch';
import { UsageError } from '../errors.js';
import { MEDIA_EXTENSIONS } from './extract/formats.js';
import { archiveKindOf, type ArchiveKind } from './sources/formats.js';

/**
 * The one rule for what a path is, shared by the folder walk, the archive sources, the
 * listing-only count and `sync --watch`: junk (and why), a skipped folder, media, a sidecar,
 * an archive. Pure: names only (what a stat finds, the caller's).
 */

/**
 * Which files and folders a scan leaves out on purpose, and under which stable reason name
 * (the names appear in the summary and in `skipped` events; scripts may rely on them).
 */
export const SKIP_REASONS = [
  'appledouble', // ._NAME: macOS resource forks copied to foreign disks
  'system_file', // .DS_Store
  'system_folder', // .Spotlight-V100, .Trashes, .fseventsd
  'thumbnail_folder', // .thumbnails (Android, Linux desktops)
  'nas_thumbnail', // @eaDir, @__thumb, SYNOFILE_THUMB_* (Synology, QNAP)
  'trashed', // .trashed-* (Android), Recently Deleted (Apple)
  'hidden_folder', // any other folder whose name starts with a dot
  'symlink_folder', // a symlinked folder, not followed without --follow-symlinks
  'symlink_loop', // a folder already walked (reached again through a symlink)
  'broken_symlink', // a symlink whose target does not exist
  'sidecar', // .json / .xmp next to media: read with the media, no line of its own
  'archive', // a .zip, .tgz/.tar.gz or .tar met in a folder: read in place only with --archives
  'not_media', // any other file whose extension is not a media extension
  'vanished', // listed, then gone before it could be examined
] as const;

export type SkipReason = (typeof SKIP_REASONS)[number];

const SYSTEM_FOLDERS = new Set(['.spotlight-v100', '.trashes', '.fseventsd', '.temporaryitems']);
const NAS_THUMBNAIL_FOLDERS = new Set(['@eadir', '@__thumb']);

/** Why a folder is skipped, or null when it is walked. */
export function folderSkipReason(name: string): SkipReason | null {
  const lower = name.toLowerCase();
  if (SYSTEM_FOLDERS.has(lower)) return 'system_folder';
  if (lower === '.thumbnails') return 'thumbnail_folder';
  if (NAS_THUMBNAIL_FOLDERS.has(lower)) return 'nas_thumbnail';
  if (lower.startsWith('.trashed-') || lower === 'recently deleted') return 'trashed';
  if (name.startsWith('.')) return 'hidden_folder';
  return null;
}

/** Why a file is skipped on its name alone, or null when it may be media. */
export function fileSkipReason(name: string): SkipReason | null {
  if (name.startsWith('._')) return 'appledouble';
  if (name === '.DS_Store') return 'system_file';
  if (name.toLowerCase().startsWith('.trashed-')) return 'trashed';
  if (name.startsWith('SYNOFILE_THUMB_')) return 'nas_thumbnail';
  return null;
}

/** Lower-case extension without the dot ('' when none). */
export function extensionOf(name: string): string {
  const dot = name.lastIndexOf('.');
  return dot <= 0 ? '' : name.slice(dot + 1).toLowerCase();
}

/** Sidecars describe media beside them (Google Takeout JSON, XMP). */
export function isSidecarName(name: string): boolean {
  const ext = extensionOf(name);
  return ext === 'json' || ext === 'xmp';
}

/** What a path is, by its names alone. */
export type PathClass =
  /** `--exclude` matches it (or a folder on its way): left out, not counted. */
  | { kind: 'excluded' }
  /** Left out on purpose: `at` is what is skipped (a folder on its way, or the path itself). */
  | { kind: 'skip'; reason: SkipReason; at: string }
  | { kind: 'folder' }
  | { kind: 'media' }
  | { kind: 'sidecar' }
  | { kind: 'archive'; format: ArchiveKind };

export interface ClassifyOptions {
  /** What the path names: a file, a folder, or not known (true of both rules). Default 'file'. */
  type?: 'file' | 'folder';
  /** `--exclude` (createExcludeMatcher, below), over the path and each folder on its way. */
  excluded?: ExcludeMatcher | null;
}

/**
 * What a `/`-separated path below a root (or an archive member's name) is: the folders on its
 * way first (an excluded or junk one decides), then its own name (classifyName). `.`, `..` and
 * empty parts are names, never followed.
 */
export function classifyPath(relPath: string, options: ClassifyOptions = {}): PathClass {
  const parts = relPath.split('/');
  const base = parts.pop()!;
  let rel = '';
  for (const part of parts) {
    rel = rel === '' ? part : `${rel}/${part}`;
    if (part === '' || part === '.' || part === '..') continue;
    if (options.excluded?.(rel)) return { kind: 'excluded' };
    const reason = folderSkipReason(part);
    if (reason) return { kind: 'skip', reason, at: rel };
  }
  if (options.excluded?.(relPath)) return { kind: 'excluded' };
  return classifyName(base, options.type ?? 'file', relPath);
}

/** What one name is, as a file or a folder (`at`: the path a skip names, default the name). */
export function classifyName(name: string, type: 'file' | 'folder', at = name): PathClass {
  if (type === 'folder') {
    const reason = folderSkipReason(name);
    return reason ? { kind: 'skip', reason, at } : { kind: 'folder' };
  }
  const reason = fileSkipReason(name);
  if (reason) return { kind: 'skip', reason, at };
  if (isSidecarName(name)) return { kind: 'sidecar' };
  if (MEDIA_EXTENSIONS.has(extensionOf(name))) return { kind: 'media' };
  const format = archiveKindOf(name);
  return format ? { kind: 'archive', format } : { kind: 'skip', reason: 'not_media', at };
}

/** A junk name (appledouble, system file, trash, NAS thumbnail): skipped whatever its extension. */
export const isJunk = (found: PathClass): boolean => found.kind === 'skip' && found.reason !== 'not_media';

/** What the walk does with one folder entry, decided on its name and type alone. */
export type EntryKind =
  | { kind: 'folder' }
  | { kind: 'skip'; reason: SkipReason }
  | { kind: 'sidecar' }
  /** A media name: the entry is examined (stat) before it counts as a file. */
  | { kind: 'media' }
  /** A symlink: what it points to decides (stat). */
  | { kind: 'link' };

/** Classifies a directory entry (pure: the dirent's type bits and its name, by classifyName). */
export function entryKind(name: string, type: { isDirectory(): boolean; isSymbolicLink(): boolean }): EntryKind {
  const found = classifyName(name, type.isDirectory() ? 'folder' : 'file');
  if (found.kind === 'folder') return { kind: 'folder' };
  if (isJunk(found)) return { kind: 'skip', reason: skipReasonOf(found) };
  if (type.isSymbolicLink()) return { kind: 'link' };
  if (found.kind === 'media' || found.kind === 'sidecar') return { kind: found.kind };
  return { kind: 'skip', reason: skipReasonOf(found) };
}

/** The skip notice of anything that is not media (a sidecar or an archive has a reason of its own). */
export function skipReasonOf(found: PathClass): SkipReason {
  if (found.kind === 'skip') return found.reason;
  if (found.kind === 'archive') return 'archive';
  return found.kind === 'sidecar' ? 'sidecar' : 'not_media';
}

/** `--exclude`, compiled once per scan and shared by everything that lists (createExcludeMatcher). */
export type ExcludeMatcher = (relPath: string) => boolean;

/**
 * `--exclude` as a pure predicate over a path relative to the scanned root (POSIX
 * separators). A pattern without `/` matches at any depth (`Screenshots`, `*.png`); one with
 * `/` is anchored at the root (`2019/raw/**`). Dot names match like any other (`dot: true`).
 * A folder that matches is not entered, so `2019/raw/**` also leaves out `2019/raw` itself.
 * A pattern picomatch cannot compile (longer than 65,536 characters) is a UsageError naming it.
 */
export function createExcludeMatcher(patterns: readonly string[]): ExcludeMatcher | null {
  if (patterns.length === 0) return null;
  const anchored = patterns.map((pattern) => (pattern.includes('/') ? pattern : `**/${pattern}`));
  try {
    return picomatch(anchored, { dot: true });
  } catch (error) {
    const bad = patterns[anchored.findIndex((pattern) => !compiles(pattern))] ?? patterns[0]!;
    const shown = bad.length > 40 ? `${bad.slice(0, 40)}… (${bad.length} characters)` : bad;
    throw new UsageError(
      `--exclude '${shown}' is not a glob camroll can use (${(error as Error).message}): shorten or fix it`,
    );
  }
}

function compiles(pattern: string): boolean {
  try {
    picomatch(pattern, { dot: true });
    return true;
  } catch {
    return false;
  }
}
