/** What an operating-system error code means for a file or folder, in words a user acts on. */
const PHRASES: Record<string, string> = {
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  ENOENT: 'no longer exists',
  ENOTDIR: 'is not a folder',
  EISDIR: 'is a folder',
  ELOOP: 'too many levels of symbolic links',
  EIO: 'input/output error (is the drive still attached?)',
  ENXIO: 'device not available (is the drive still attached?)',
  ENODEV: 'device not available (is the drive still attached?)',
  ESTALE: 'stale network file handle (is the share still mounted?)',
  EHOSTDOWN: 'the network share is unreachable',
  ETIMEDOUT: 'timed out (is the network share reachable?)',
  EMFILE: 'too many open files',
  ENFILE: 'too many open files on the system',
  ENAMETOOLONG: 'name too long',
  ENOSPC: 'no space left on the device',
};

/**
 * A short description of a file-system error that does not repeat the path (the caller shows
 * it once): `permission denied (EACCES)`. Node's own message names the path and the code
 * already, so it is used only for codes without a phrase here.
 */
export function describeFsError(error: NodeJS.ErrnoException): string {
  const code = error.code;
  if (code !== undefined && PHRASES[code] !== undefined) return `${PHRASES[code]} (${code})`;
  // "EXDEV: cross-device link not permitted, rename 'a' -> 'b'": keep the words, drop the paths.
  const words = error.message.replace(/^[A-Z]+: /, '').replace(/, \w+ '.*$/, '');
  return code === undefined ? words : `${words} (${code})`;
}
