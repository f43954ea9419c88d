import { chmodSync, chownSync, copyFileSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, runCamroll } from './helpers/camroll.js';
import { createSyncEnv, TEST_KEY, type SyncEnv } from './helpers/sync-env.js';

// Root reads every folder whatever its mode: the binary runs as nobody to meet EACCES.
const NOBODY = { uid: 65534, gid: 65534 };
const isRoot = process.getuid?.() === 0;
const PHOTO = join(ROOT, 'fixtures', 'library', 'events', 'sao-paulo', 'IMG_5003.jpg');

const TITLE = 'an unreadable folder and file, as a user who cannot read them';
describe.skipIf(!isRoot)(isRoot ? TITLE : `${TITLE} (skipped: needs root to run as nobody)`, () => {
  let env: SyncEnv;
  let dir: string;
  let lib: string;
  let clientEnv: NodeJS.ProcessEnv;

  beforeAll(async () => {
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
    clientEnv = { ...env.clientEnv(env.serve.baseUrl), HOME: join(home, 'h'), XDG_DATA_HOME: join(home, 'd'), XDG_CACHE_HOME: join(home, 'c'), XDG_CONFIG_HOME: join(home, 'cf') };
    for (const key of ['HOME', 'XDG_DATA_HOME', 'XDG_CACHE_HOME', 'XDG_CONFIG_HOME'] as const) mkdirSync(clientEnv[key]!, { recursive: true });
    for (const entry of [dir, ...readdirSync(dir, { recursive: true }).map((p) => join(dir, String(p)))]) chownSync(entry, NOBODY.uid, NOBODY.gid);
    chmodSync(join(lib, 'locked'), 0o000);
    chmodSync(join(lib, 'ok', 'c.jpg'), 0o000);
  });
  afterAll(async () => {
    await env?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('sync: no sync-complete, exit 1, and the summary says why; scan agrees (exit 1)', async () => {
    const run = await runCamroll(['sync', lib, '--email', 'unreadable@example.com', '--json'], { env: clientEnv, as: NOBODY });
    expect(run.code, run.stderr).toBe(1);
    const summary = JSON.parse(run.stdout) as { user_id: string; outcome: string; sync_complete: boolean; not_examined: string; sent: number };
    expect(summary).toMatchObject({ outcome: 'not_examined', sync_complete: false, sent: 1, not_examined: '2 folders or files could not be read' });
    expect(run.stderr).toContain('camroll: warning: locked: permission denied (EACCES) [unreadable_folder]');
    expect(run.stderr).toContain('camroll: sync-complete was not called: 2 folders or files could not be read');
    expect(`${run.stdout}${run.stderr}`).not.toContain(TEST_KEY);
    // The service was never told the library was examined.
    const stats = await fetch(`${env.serve.baseUrl}/users/${summary.user_id}/stats`, { headers: { 'X-PARTNER-API-KEY': TEST_KEY } });
    expect(await stats.json()).toMatchObject({ has_synced: false });

    const human = await runCamroll(['sync', lib, '--email', 'unreadable@example.com', '--no-events'], { env: clientEnv, as: NOBODY });
    expect(human.code).toBe(1);
    expect(human.stdout).toMatch(/^sync-complete: +not called: 2 folders or files could not be read$/m);

    const scan = await runCamroll(['scan', lib], { env: clientEnv, as: NOBODY });
    expect(scan.code).toBe(1);
    expect(scan.stdout).toMatch(/read_error 1/);
    expect(scan.stdout).toMatch(/unreadable_folder 1/);
  });
});
