/**
 * What counts as "could not be read", for scan and sync alike: a folder or file the walk
 * could not list or open, or a file whose bytes could not be read. A corrupt or unsupported
 * file was read (its problem is the file, not the access to it) and does not count here; a
 * sync that met one still examined the library.
 */

/**
 * Scan warnings that are no unread part of the library: every file was read anyway (the
 * scan cache was unavailable), a sidecar or an iCloud CSV was read and found unusable or
 * without its media (damaged, like a corrupt file), or an export's parts were given with
 * gaps (sync decides that one on its own: `--allow-missing-parts`).
 */
const HARMLESS_WARNINGS: ReadonlySet<string> = new Set([
  'cache_unavailable',
  'photo_details_unusable',
  'sidecar_without_media',
  'missing_parts',
]);

/**
 * Per-file error codes where the bytes were never read (I/O, permissions, a reader that
 * crashed, an archive whose download stops before the member: the rest of it is missing).
 */
const UNREAD_ERRORS: ReadonlySet<string> = new Set(['read_error', 'internal_error', 'truncated_archive']);

/** Whether a scan warning means part of the library could not be read (`unreadable_folder`, `unreadable_file`). */
export function isUnreadWarning(code: string): boolean {
  return !HARMLESS_WARNINGS.has(code);
}

/** Whether a file's error code means its bytes could not be read (as opposed to read and found unusable). */
export function isUnreadError(code: string): boolean {
  return UNREAD_ERRORS.has(code);
}
