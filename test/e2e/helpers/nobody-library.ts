import {
  chmodSync,
  chownSync,
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT, runCamroll, type RunResult, type SpawnOptions } from './camroll.js';
import { cannotRunAs, runnableCopy } from './other-user.js';
import { createSyncEnv, type SyncEnv } from './sync-env.js';

/** The user the binary runs as to meet EACCES (root reads every folder whatever its mode). */
export const NOBODY = { uid: 65534, gid: 65534 };
const PHOTO = join(ROOT, 'fixtures', 'library', 'events', 'sao-paulo', 'IMG_5003.jpg');

/** Why nobody cannot run the binary here (not root, no node for nobody), or null. */
export const nobodySkipReason = (): string | null => cannotRunAs(NOBODY);

export interface NobodyLibrary {
  /** The service the library syncs to. */
  env: SyncEnv;
  /** The test's folder (nobody's own); the library is `lib` inside it. */
  dir: string;
  /** `ok/a.jpg`, `ok/c.jpg` (mode 000: unreadable), `locked/` (mode 000), and `ok/d.jpg` if damaged. */
  lib: string;
  /** The environment of nobody's runs: the service, and a home nobody may write to. */
  clientEnv: NodeJS.ProcessEnv;
  /** Runs a copy of the binary as nobody, from the test's folder (with `clientEnv` unless given). */
  run(args: string[], options?: Partial<SpawnOptions>): Promise<RunResult>;
  close(): Promise<void>;
}

/**
 * A library with an unreadable folder and file (and a damaged photo when asked), synced as
 * nobody. The checkout may sit where nobody cannot enter (/root, a 0700 home), so nobody runs a
 * copy of the binary in a temp folder (other-user.ts), never the checkout itself.
 */
export async function createNobodyLibrary(options: { prefix: string; damaged?: boolean }): Promise<NobodyLibrary> {
  const app = runnableCopy(NOBODY);
  const env = await createSyncEnv();
  const dir = mkdtempSync(join(tmpdir(), options.prefix));
  const lib = join(dir, 'lib');
  mkdirSync(join(lib, 'ok'), { recursive: true });
  mkdirSync(join(lib, 'locked'));
  copyFileSync(PHOTO, join(lib, 'ok', 'a.jpg'));
  copyFileSync(PHOTO, join(lib, 'locked', 'b.jpg'));
  copyFileSync(PHOTO, join(lib, 'ok', 'c.jpg'));
  if (options.damaged) {
    // Read whole, and not a photo at all: damaged.
    const bytes = Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe1]), Buffer.from('not really a photo')]);
    writeFileSync(join(lib, 'ok', 'd.jpg'), bytes);
  }
  // A home of its own that nobody may write to.
  const home = join(dir, 'home');
  const clientEnv: NodeJS.ProcessEnv = {
    ...env.clientEnv(env.serve.baseUrl),
    HOME: join(home, 'h'),
    XDG_DATA_HOME: join(home, 'd'),
    XDG_CACHE_HOME: join(home, 'c'),
    XDG_CONFIG_HOME: join(home, 'cf'),
  };
  for (const key of ['HOME', 'XDG_DATA_HOME', 'XDG_CACHE_HOME', 'XDG_CONFIG_HOME'] as const) {
    mkdirSync(clientEnv[key]!, { recursive: true });
  }
  for (const entry of [dir, ...readdirSync(dir, { recursive: true }).map((p) => join(dir, String(p)))]) {
    chownSync(entry, NOBODY.uid, NOBODY.gid);
  }
  chmodSync(join(lib, 'locked'), 0o000);
  chmodSync(join(lib, 'ok', 'c.jpg'), 0o000);
  return {
    env,
    dir,
    lib,
    clientEnv,
    run: (args, spawn = {}) =>
      runCamroll(args, { ...spawn, env: spawn.env ?? clientEnv, as: NOBODY, bin: app.bin, cwd: dir }),
    async close() {
      await env.close();
      rmSync(dir, { recursive: true, force: true });
      app.remove();
    },
  };
}
