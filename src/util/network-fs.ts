import { statfsSync } from 'node:fs';

/**
 * File-system type numbers (statfs f_type, from Linux's magic.h) of network shares and FUSE
 * mounts (sshfs, rclone, many NAS clients): change events from them are missing or partial,
 * so a watcher has to poll.
 */
const NETWORK_FS_TYPES: ReadonlySet<number> = new Set([
  0x6969, // NFS
  0x517b, // SMB
  0xff534d42, // CIFS
  0xfe534d42, // SMB2
  0x65735546, // FUSE
  0x564c, // NCP
  0x73757245, // Coda
  0x7461636f, // OCFS2
  0x47504653, // GPFS
  0x01161970, // GFS2
  0x00c36400, // Ceph
  0x19830326, // FhGFS / BeeGFS
  0xa501fcf5, // AFS
]);

/** Whether a path lies on a network share or a FUSE mount (false when it cannot tell, or off Linux). */
export function isNetworkFileSystem(path: string, statfs: (path: string) => { type: number } = statfsSync): boolean {
  if (process.platform !== 'linux') return false;
  try {
    return NETWORK_FS_TYPES.has(statfs(path).type >>> 0);
  } catch {
    return false;
  }
}
