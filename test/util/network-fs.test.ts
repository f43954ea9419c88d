import { describe, expect, it } from 'vitest';
import { isNetworkFileSystem } from '../../src/util/network-fs.js';

describe.runIf(process.platform === 'linux')('isNetworkFileSystem', () => {
  it.each([
    [0x6969, true], // NFS
    [0xff534d42, true], // CIFS
    [0xfe534d42 | 0, true], // SMB2, as a signed 32-bit number
    [0x65735546, true], // FUSE (sshfs, rclone)
    [0xef53, false], // ext4
    [0x01021994, false], // tmpfs
  ])('type %i -> %s', (type, expected) => {
    expect(isNetworkFileSystem('/mnt/x', () => ({ type }))).toBe(expected);
  });

  it('says false when it cannot tell', () => {
    expect(
      isNetworkFileSystem('/mnt/x', () => {
        throw Object.assign(new Error('gone'), { code: 'ENOENT' });
      }),
    ).toBe(false);
  });
});
