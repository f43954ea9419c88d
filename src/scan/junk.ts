import { archiveKindOf } from './archive/kind.js';
import { MEDIA_EXTENSIONS } from './extract/formats.js';

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

/** What the walk does with one folder entry, decided on its name and type alone. */
export type EntryKind =
  | { kind: 'folder' }
  | { kind: 'skip'; reason: SkipReason }
  | { kind: 'sidecar' }
  /** A media name: the entry is examined (stat) before it counts as a file. */
  | { kind: 'media' }
  /** A symlink: what it points to decides (stat). */
  | { kind: 'link' };

/** Classifies a directory entry (pure: the dirent's type bits and its name). */
export function entryKind(name: string, type: { isDirectory(): boolean; isSymbolicLink(): boolean }): EntryKind {
  if (type.isDirectory()) {
    const reason = folderSkipReason(name);
    return reason ? { kind: 'skip', reason } : { kind: 'folder' };
  }
  const reason = fileSkipReason(name);
  if (reason) return { kind: 'skip', reason };
  if (type.isSymbolicLink()) return { kind: 'link' };
  if (isSidecarName(name)) return { kind: 'sidecar' };
  if (!MEDIA_EXTENSIONS.has(extensionOf(name)))
    return { kind: 'skip', reason: archiveKindOf(name) ? 'archive' : 'not_media' };
  return { kind: 'media' };
}
