import { closeSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { hostname } from 'node:os';
import { LocalStateError } from '../errors.js';
import { describeFsError } from './fs-error.js';

/** Who holds a lock: written into the lock file. */
export interface LockOwner {
  pid: number;
  host: string;
  started_at: string;
}

/** A held lock; `release` is safe to call twice. */
export interface ProcessLock {
  release(): void;
}

/** Whether a process of this host is alive (signal 0 probes without signalling). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function readOwner(path: string): LockOwner | null {
  try {
    const owner = JSON.parse(readFileSync(path, 'utf8')) as Partial<LockOwner>;
    if (typeof owner.pid !== 'number' || typeof owner.host !== 'string') return null;
    return { pid: owner.pid, host: owner.host, started_at: String(owner.started_at ?? '?') };
  } catch {
    return null;
  }
}

/**
 * Takes an exclusive lock file for the life of this process's work on something (a sync
 * journal). A lock left by a process of this host that is gone (a crash, kill -9) is taken
 * over; one held by a live process, or by another host (a shared NAS home), is refused
 * with a `locked` error naming the holder. `what` names the thing for the message.
 */
export function acquireLock(path: string, what: string, now: () => Date = () => new Date()): ProcessLock {
  const me: LockOwner = { pid: process.pid, host: hostname(), started_at: now().toISOString() };
  for (let attempt = 0; attempt < 2; attempt += 1) {
    let fd: number;
    try {
      fd = openSync(path, 'wx', 0o600);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') {
        throw new LocalStateError(
          'lock_failed',
          `cannot create the lock file ${path}: ${describeFsError(error as NodeJS.ErrnoException)}`,
          { cause: error },
        );
      }
      const owner = readOwner(path);
      const stale = owner === null ? false : owner.host === me.host && !alive(owner.pid);
      if (stale) {
        rmSync(path, { force: true });
        continue;
      }
      const who =
        owner === null ? 'another process' : `process ${owner.pid} on ${owner.host}, started ${owner.started_at}`;
      throw new LocalStateError(
        'locked',
        `${what} is in use by ${who}; wait for it to finish or stop it (if it is gone, delete ${path})`,
        {
          details: { lock: path, ...(owner ?? {}) },
        },
      );
    }
    try {
      writeSync(fd, JSON.stringify(me));
    } finally {
      closeSync(fd);
    }
    let released = false;
    return {
      release: () => {
        if (released) return;
        released = true;
        // Only our own lock: never remove one another process took over.
        if (readOwner(path)?.pid === me.pid) rmSync(path, { force: true });
      },
    };
  }
  throw new LocalStateError('locked', `${what} is locked (${path})`);
}
