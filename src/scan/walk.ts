import { createHash } from 'node:crypto';
import * as nodeFs from 'node:fs';
import path from 'node:path';
import type { Readable } from 'node:stream';
import fg from 'fast-glob';
import { MEDIA_EXTENSIONS } from './extract/formats.js';
import { createChannel } from './channel.js';
import { extensionOf, fileSkipReason, folderSkipReason, isSidecarName, type SkipReason } from './junk.js';
import { describeFsError } from '../util/fs-error.js';

/** A media file found by the walk, with what the scan cache keys on. */
export interface WalkFile {
  type: 'file';
  /** Relative to the root it was found under, POSIX separators. */
  path: string;
  absPath: string;
  size: number;
  mtimeMs: number;
  ino: number;
  /** Names, sizes and mtimes of the sidecars in the file's folder ('' when none). */
  sidecarFingerprint: string;
}

export type WalkEvent =
  | WalkFile
  | { type: 'skipped'; reason: SkipReason; absPath: string }
  | { type: 'warning'; code: 'unreadable_folder' | 'unreadable_file'; absPath: string; message: string };

/** The few file-system calls the walk makes; tests pass failing ones to simulate unreadable folders. */
/** The fingerprint of a folder's sidecars from their `name:size:mtime` parts (any order). */
function fingerprintOf(parts: string[]): string {
  return createHash('sha1').update([...parts].sort().join('\n')).digest('base64url');
}

/**
 * The sidecar fingerprint the walk gives files of `dir` ('' when it holds no sidecar), for a
 * file named on its own: the scan cache keys entries by it.
 */
export function sidecarFingerprintOf(dir: string): string {
  let names: string[];
  try {
    names = nodeFs.readdirSync(dir).filter((name) => isSidecarName(name) && !fileSkipReason(name));
  } catch {
    return '';
  }
  if (names.length === 0) return '';
  return fingerprintOf(
    names.map((name) => {
      try {
        const stats = nodeFs.statSync(path.join(dir, name));
        return `${name}:${stats.size}:${stats.mtimeMs}`;
      } catch {
        return `${name}:?`;
      }
    }),
  );
}

export interface WalkFs {
  readdir: typeof nodeFs.readdir;
  stat: typeof nodeFs.stat;
  lstat: typeof nodeFs.lstat;
  statSync: typeof nodeFs.statSync;
}

export interface WalkOptions {
  /** Absolute folders, walked one after the other. */
  roots: string[];
  /** fast-glob patterns relative to each root; a pattern without `/` matches at any depth. */
  exclude?: string[];
  followSymlinks?: boolean;
  signal?: AbortSignal;
  fs?: Partial<WalkFs>;
  /** Events held before the walk pauses listing folders (default 1024). */
  highWaterMark?: number;
}

type Dirent = nodeFs.Dirent;
type ReaddirCallback = (error: NodeJS.ErrnoException | null, entries: Dirent[]) => void;

/**
 * Walks the roots with a fast-glob stream and yields media files (with their stats), skip
 * notices and warnings. Junk and non-media names are filtered inside the directory listing
 * itself, so skipped folders cost one listing entry and are counted once each; listing
 * pauses while the consumer lags, so a million-file tree never sits in memory.
 */
export function walk(options: WalkOptions): AsyncIterable<WalkEvent> {
  const fs: WalkFs = {
    readdir: options.fs?.readdir ?? nodeFs.readdir,
    stat: options.fs?.stat ?? nodeFs.stat,
    lstat: options.fs?.lstat ?? nodeFs.lstat,
    statSync: options.fs?.statSync ?? nodeFs.statSync,
  };
  const limit = options.highWaterMark ?? 1024;
  const channel = createChannel<WalkEvent>({ limit });
  const follow = options.followSymlinks ?? false;
  const exclude = (options.exclude ?? []).map((pattern) => (pattern.includes('/') ? pattern : `**/${pattern}`));
  // Only folders that hold sidecars get an entry, so this stays small.
  const sidecarPrints = new Map<string, string>();
  const visitedFolders = new Set<string>();
  let stopped = false;

  const waitForRoom = async (): Promise<void> => {
    while (!stopped && channel.size >= limit) await channel.room();
  };
  const skip = (reason: SkipReason, absPath: string): void => channel.pushNow({ type: 'skipped', reason, absPath });
  const warn = (code: 'unreadable_folder' | 'unreadable_file', absPath: string, error: NodeJS.ErrnoException): void =>
    channel.pushNow({ type: 'warning', code, absPath, message: describeFsError(error) });

  const fingerprintSidecars = (dir: string, names: string[], done: () => void): void => {
    const parts: string[] = [];
    let left = names.length;
    for (const name of names) {
      fs.stat(path.join(dir, name), (error, stats) => {
        parts.push(error ? `${name}:?` : `${name}:${stats.size}:${stats.mtimeMs}`);
        left -= 1;
        if (left > 0) return;
        sidecarPrints.set(dir, fingerprintOf(parts));
        done();
      });
    }
  };

  const listFolder = (dir: string, callback: ReaddirCallback): void => {
    fs.readdir(dir, { withFileTypes: true }, (error, dirents) => {
      if (error) {
        warn('unreadable_folder', dir, error);
        callback(error, []);
        return;
      }
      const kept: Dirent[] = [];
      const sidecars: string[] = [];
      for (const dirent of dirents) {
        const absPath = path.join(dir, dirent.name);
        if (dirent.isDirectory()) {
          const reason = folderSkipReason(dirent.name);
          if (reason) skip(reason, absPath);
          else kept.push(dirent);
          continue;
        }
        const reason = fileSkipReason(dirent.name);
        if (reason) {
          skip(reason, absPath);
        } else if (dirent.isSymbolicLink()) {
          kept.push(dirent); // resolved below, on the entry
        } else if (isSidecarName(dirent.name)) {
          sidecars.push(dirent.name);
          skip('sidecar', absPath);
        } else if (!MEDIA_EXTENSIONS.has(extensionOf(dirent.name))) {
          skip('not_media', absPath);
        } else {
          kept.push(dirent);
        }
      }
      if (sidecars.length === 0) callback(null, kept);
      else fingerprintSidecars(dir, sidecars, () => callback(null, kept));
    });
  };

  // Every folder listing goes through here: the pause point and, when following links, the loop guard.
  const readdir = ((dir: string, ...rest: unknown[]): void => {
    const callback = rest[rest.length - 1] as ReaddirCallback;
    void waitForRoom().then(() => {
      if (stopped) {
        callback(null, []);
        return;
      }
      if (!follow) {
        listFolder(dir, callback);
        return;
      }
      fs.stat(dir, (error, stats) => {
        if (error) {
          warn('unreadable_folder', dir, error);
          callback(error, []);
          return;
        }
        const key = `${stats.dev}:${stats.ino}`;
        if (visitedFolders.has(key)) {
          skip('symlink_loop', dir);
          callback(null, []);
          return;
        }
        visitedFolders.add(key);
        listFolder(dir, callback);
      });
    });
  }) as unknown as typeof nodeFs.readdir;

  // Symlinks (not followed, or broken) and media names reach here; the stat decides which.
  // A synchronous stat: on a warm cache it costs a third of a callback round trip, and this
  // stat is most of a re-scan's work (listing parallelism comes from fast-glob's readdirs).
  const onEntry = (root: string, entry: { path: string; name: string; dirent: Dirent }): void => {
    if (entry.dirent.isDirectory()) return;
    const absPath = path.join(root, entry.path);
    const isLink = entry.dirent.isSymbolicLink();
    let stats: nodeFs.Stats;
    try {
      stats = fs.statSync(absPath);
    } catch (caught) {
      const error = caught as NodeJS.ErrnoException;
      if (isLink && error.code === 'ENOENT') skip('broken_symlink', absPath);
      else if (error.code === 'ENOENT') skip('vanished', absPath);
      else warn('unreadable_file', absPath, error);
      return;
    }
    if (stats.isDirectory()) {
      skip('symlink_folder', absPath);
    } else if (!MEDIA_EXTENSIONS.has(extensionOf(entry.name))) {
      skip(isSidecarName(entry.name) ? 'sidecar' : 'not_media', absPath);
    } else if (stats.isFile()) {
      channel.pushNow({
        type: 'file',
        path: entry.path,
        absPath,
        size: stats.size,
        mtimeMs: stats.mtimeMs,
        ino: stats.ino,
        sidecarFingerprint: sidecarPrints.get(path.dirname(absPath)) ?? '',
      });
    } else {
      skip('not_media', absPath); // a FIFO, socket or device with a media name
    }
  };

  const walkRoot = (root: string): Promise<void> =>
    new Promise((resolve, reject) => {
      const stream = fg.stream('**', {
        cwd: root,
        dot: true,
        onlyFiles: false,
        objectMode: true,
        unique: false, // fast-glob's unique keeps every path in a Set: not for a million files
        followSymbolicLinks: follow,
        suppressErrors: true, // counted by our readdir as warnings, never the end of the walk
        throwErrorOnBrokenSymbolicLink: false,
        ignore: exclude,
        fs: { readdir, stat: fs.stat, lstat: fs.lstat },
      }) as Readable;
      const onAbort = (): void => {
        stream.destroy();
        resolve();
      };
      options.signal?.addEventListener('abort', onAbort, { once: true });
      stream.on('data', (entry: { path: string; name: string; dirent: Dirent }) => onEntry(root, entry));
      stream.once('error', reject);
      stream.once('end', () => {
        options.signal?.removeEventListener('abort', onAbort);
        resolve();
      });
    });

  void (async () => {
    try {
      for (const root of options.roots) {
        if (options.signal?.aborted) break;
        await walkRoot(root);
      }
      stopped = true;
      channel.close();
    } catch (error) {
      stopped = true;
      channel.fail(error);
    }
  })();

  return {
    [Symbol.asyncIterator]: () => {
      const inner = channel[Symbol.asyncIterator]();
      return {
        next: () => inner.next(),
        return: async (value?: unknown) => {
          // The consumer stopped early: let pending listings finish empty.
          stopped = true;
          channel.close();
          return inner.return ? inner.return(value) : { done: true, value: undefined };
        },
      } as AsyncIterator<WalkEvent>;
    },
  };
}
