import { describe, expect, it } from 'vitest';
import { describeFsError } from '../../src/util/fs-error.js';

const fsError = (code: string | undefined, message: string): NodeJS.ErrnoException =>
  Object.assign(new Error(message), { code });

describe('describeFsError', () => {
  it.each([
    [fsError('EACCES', "EACCES: permission denied, scandir '/mnt/nas/Photos'"), 'permission denied (EACCES)'],
    [fsError('EIO', 'EIO: i/o error, read'), 'input/output error (is the drive still attached?) (EIO)'],
    [
      fsError('EXDEV', "EXDEV: cross-device link not permitted, rename '/a' -> '/b'"),
      'cross-device link not permitted (EXDEV)',
    ],
    [fsError(undefined, 'something odd'), 'something odd'],
  ])('%s', (error, expected) => {
    expect(describeFsError(error)).toBe(expected);
    expect(describeFsError(error)).not.toContain('/mnt/nas');
  });
});
