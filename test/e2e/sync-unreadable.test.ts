import { chmodSync, chownSync, copyFileSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, runCamroll, type RunResult, type SpawnOptions } from './helpers/camroll.js';
import { cannotRunAs, runnableCopy, type RunnableCopy } from './helpers/other-user.js';
import { createSyncEnv, TEST_KEY, type SyncEnv } from './helpers/sync-env.js';

// Root reads every folder whatever its mode: the binary runs as nobody to meet EACCES. The
// checkout may sit where nobody cannot enter (/root, a 0700 home), so nobody runs a copy of the
// binary in a temp folder (other-user.ts), never the checkout itself.
const NOBODY = { uid: 65534, gid: 65534 };
const skipReason = cannotRunAs(NOBODY);
const PHOTO = join(ROOT, 'fixtures', 'library', 'events', 'sao-paulo', 'IMG_5003.jpg');

const TITLE = 'an unreadable folder and file, as a user who cannot read them';
describe.skipIf(skipReason !== null)(skipReason === null ? TITLE : `${TITLE} (skipped: ${skipReason})`, () => {
  let env: SyncEnv;
  let dir: string;
  let lib: string;
  let clientEnv: NodeJS.ProcessEnv;
  let app: RunnableCopy;
  /** The binary's copy, as nobody, from the test's own folder. */
  const asNobody = (args: string[], options: SpawnOptions): Promise<RunResult> =>
    runCamroll(args, { ...options, as: NOBODY, bin: app.bin, cwd: dir });

  beforeAll(async () => {
    app = runnableCopy(NOBODY);
    env = await createSyncEnv();
    dir = mkdtempSync(join(tmpdir(), 'camroll-unreadable-'));
    lib = join(dir, 'lib');
    mkdirSync(join(lib, 'ok'), { recursive: true });
    mkdirSync(join(lib, 'locked'));
    copyFileSync(PHOTO, join(lib, 'ok', 'a.jpg'));
    copyFileSync(PHOTO, join(lib, 'locked', 'b.jpg'));
    copyFileSync(PHOTO, join(lib, 'ok', 'c.jpg'));
    // A home of its own that nobody may write to.
    const home = join(dir, 'home');
    clientEnv = {
      ...env.clientEnv(env.serve.baseUrl),
      HOME: join(home, 'h'),
      XDG_DATA_HOME: join(home, 'd'),
      XDG_CACHE_HOME: join(home, 'c'),
      XDG_CONFIG_HOME: join(home, 'cf'),
    };
    for (const key of ['HOME', 'XDG_DATA_HOME', 'XDG_CACHE_HOME', 'XDG_CONFIG_HOME'] as const)
      mkdirSync(clientEnv[key]!, { recursive: true });
    for (const entry of [dir, ...readdirSync(dir, { recursive: true }).map((p) => join(dir, String(p)))])
      chownSync(entry, NOBODY.uid, NOBODY.gid);
    chmodSync(join(lib, 'locked'), 0o000);
    chmodSync(join(lib, 'ok', 'c.jpg'), 0o000);
    // Nobody must be able to start the copy at all, or every answer below is about that.
    const version = await asNobody(['--version'], { env: clientEnv });
    expect(version.code, `nobody cannot run ${app.bin}: ${version.stderr}`).toBe(0);
  });
  afterAll(async () => {
    await env?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
    app?.remove();
  });

  it('sync: no sync-complete, exit 1, and the summary says why; scan agrees (exit 1)', async () => {
    const run = await asNobody(['sync', lib, '--email', 'unreadable@example.com', '--json'], { env: clientEnv });
    expect(run.code, run.stderr).toBe(1);
    const summary = JSON.parse(run.stdout) as {
      user_id: string;
      outcome: string;
      sync_complete: boolean;
      not_examined: string;
      sent: number;
    };
    expect(summary).toMatchObject({
      outcome: 'not_examined',
      sync_complete: false,
      sent: 1,
      not_examined: '2 folders or files could not be read',
    });
    expect(run.stderr).toContain('camroll: warning: locked: permission denied (EACCES) [unreadable_folder]');
    expect(run.stderr).toContain('camroll: sync-complete was not called: 2 folders or files could not be read');
    expect(`${run.stdout}${run.stderr}`).not.toContain(TEST_KEY);
    // The service was never told the library was examined.
    const stats = await fetch(`${env.serve.baseUrl}/users/${summary.user_id}/stats`, {
      headers: { 'X-PARTNER-API-KEY': TEST_KEY },
    });
    expect(await stats.json()).toMatchObject({ has_synced: false });

    const human = await asNobody(['sync', lib, '--email', 'unreadable@example.com', '--no-events'], { env: clientEnv });
    expect(human.code).toBe(1);
    expect(human.stdout).toMatch(/^sync-complete: +not called: 2 folders or files could not be read$/m);

    const scan = await asNobody(['scan', lib], { env: clientEnv });
    expect(scan.code).toBe(1);
    expect(scan.stdout).toMatch(/read_error 1/);
    expect(scan.stdout).toMatch(/unreadable_folder 1/);
  });
});
