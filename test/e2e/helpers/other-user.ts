import { spawnSync } from 'node:child_process';
import {
  chmodSync,
  cpSync,
  linkSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readlinkSync,
  realpathSync,
  rmSync,
  symlinkSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT } from './camroll.js';

/** A user and group to run the binary as. */
export interface OtherUser {
  uid: number;
  gid: number;
}

/** The binary, in a copy another user can run, or why there can be none. */
export type RunnableCopy = { bin: string; dir: string; remove(): void };

/**
 * Whether `user` can read `path` (every folder above it included). The checkout may sit under a
 * folder only its owner may enter (`/root`, a 0700 home), where another user reaches nothing.
 */
export function canRead(user: OtherUser, path: string): boolean {
  const probe = spawnSync(
    process.execPath,
    ['-e', 'require("node:fs").accessSync(process.argv[1], require("node:fs").constants.R_OK)', path],
    {
      ...user,
      cwd: '/',
      stdio: 'ignore',
      timeout: 30_000,
    },
  );
  return probe.status === 0;
}

/**
 * Why the binary cannot be run as `user` here, or null when it can: needs root (to switch
 * user), and a Node another user may run.
 */
export function cannotRunAs(user: OtherUser): string | null {
  if (process.getuid?.() !== 0) return 'needs root to run the binary as another user';
  const node = spawnSync(process.execPath, ['-e', ''], { ...user, cwd: '/', stdio: 'ignore', timeout: 30_000 });
  if (node.status !== 0)
    return `${process.execPath} cannot be run by uid ${user.uid} (${node.error?.message ?? `exit ${node.status}`})`;
  return null;
}

/** Mirrors a folder with hard links (no bytes copied); falls back to copying across file systems. */
function linkTree(from: string, to: string): void {
  mkdirSync(to, { recursive: true, mode: 0o755 });
  chmodSync(to, 0o755);
  for (const name of readdirSync(from)) {
    const source = join(from, name);
    const target = join(to, name);
    const stat = lstatSync(source);
    if (stat.isSymbolicLink()) symlinkSync(readlinkSync(source), target);
    else if (stat.isDirectory()) linkTree(source, target);
    else {
      try {
        linkSync(source, target);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EXDEV') throw error;
        cpSync(source, target);
      }
    }
  }
}

/**
 * A copy of what the binary needs (bin/, dist/, package.json and the dependencies) in a temp
 * folder `user` can enter, wherever the checkout is: the dependencies are linked where that
 * user can read them, else mirrored with hard links. Run `bin` with `cwd: dir`.
 */
export function runnableCopy(user: OtherUser): RunnableCopy {
  const dir = mkdtempSync(join(tmpdir(), 'camroll-app-'));
  chmodSync(dir, 0o755);
  for (const part of ['bin', 'dist', 'package.json']) cpSync(join(ROOT, part), join(dir, part), { recursive: true });
  for (const entry of readdirSync(dir, { recursive: true }).map(String))
    chmodSync(join(dir, entry), lstatSync(join(dir, entry)).isDirectory() ? 0o755 : 0o644);
  const modules = realpathSync(join(ROOT, 'node_modules'));
  if (canRead(user, modules)) symlinkSync(modules, join(dir, 'node_modules'));
  else linkTree(modules, join(dir, 'node_modules'));
  return { bin: join(dir, 'bin', 'camroll.js'), dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}
