import {
  chmodSync,
  chownSync,
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, runCamroll } from './helpers/camroll.js';
import { createSyncEnv, type SyncEnv } from './helpers/sync-env.js';

// Root reads every folder whatever its mode: the binary runs as nobody to meet EACCES.
const NOBODY = { uid: 65534, gid: 65534 };
const isRoot = process.getuid?.() === 0;
const PHOTO = join(ROOT, 'fixtures', 'library', 'events', 'sao-paulo', 'IMG_5003.jpg');

const TITLE = 'unreadable (not read at all) and damaged (read, unusable) are told apart everywhere';
describe.skipIf(!isRoot)(isRoot ? TITLE : `${TITLE} (skipped: needs root to run as nobody)`, () => {
  let env: SyncEnv;
  let dir: string;
  let lib: string;
  let clientEnv: NodeJS.ProcessEnv;

  beforeAll(async () => {
    env = await createSyncEnv();
    dir = mkdtempSync(join(tmpdir(), 'camroll-vocabulary-'));
    lib = join(dir, 'lib');
    mkdirSync(join(lib, 'ok'), { recursive: true });
    mkdirSync(join(lib, 'locked'));
    copyFileSync(PHOTO, join(lib, 'ok', 'a.jpg'));
    copyFileSync(PHOTO, join(lib, 'locked', 'b.jpg'));
    copyFileSync(PHOTO, join(lib, 'ok', 'c.jpg'));
    // Read whole, and not a photo at all: damaged.
    writeFileSync(
      join(lib, 'ok', 'd.jpg'),
      Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe1]), Buffer.from('not really a photo')]),
    );
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
  });
  afterAll(async () => {
    await env?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const reportOf = (file: string): Record<string, unknown>[] =>
    readFileSync(file, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);

  it('sync: the summary, --json and --report; the report lists the unreadable folder as scan --report does', async () => {
    const report = join(dir, 'home', 'sync.jsonl');
    const run = await runCamroll(['sync', lib, '--email', 'words@example.com', '--no-events', '--report', report], {
      env: clientEnv,
      as: NOBODY,
    });
    expect(run.code, run.stderr).toBe(1);
    expect(run.stdout).toMatch(/^files: +3 \(1 with metadata, 1 unreadable, 1 damaged, 0 duplicates\)$/m);
    const lines = reportOf(report);
    expect(lines).toContainEqual({
      type: 'warning',
      path: 'locked',
      code: 'unreadable_folder',
      message: expect.stringContaining('EACCES'),
    });
    expect(lines).toContainEqual(
      expect.objectContaining({ type: 'scan_error', path: 'ok/c.jpg', code: 'read_error', problem: 'unreadable' }),
    );
    expect(lines).toContainEqual(expect.objectContaining({ type: 'scan_error', path: 'ok/d.jpg', problem: 'damaged' }));

    const json = await runCamroll(['sync', lib, '--email', 'words@example.com', '--json'], {
      env: clientEnv,
      as: NOBODY,
    });
    expect(JSON.parse(json.stdout)).toMatchObject({
      files: 3,
      scan_errors: 2,
      unreadable: 1,
      damaged: 1,
      user_created: false,
    });

    const scanReport = join(dir, 'home', 'scan.jsonl');
    const scan = await runCamroll(['scan', lib, '--report', scanReport], { env: clientEnv, as: NOBODY });
    expect(scan.code).toBe(1);
    expect(scan.stdout).toMatch(/^ {2}unreadable: +1 \(read_error 1\)$/m);
    expect(scan.stdout).toMatch(/^ {2}damaged: +1 \(\w+ 1\)$/m);
    const scanned = reportOf(scanReport);
    expect(scanned).toContainEqual({
      path: 'locked',
      warning: { code: 'unreadable_folder', message: expect.stringContaining('EACCES') },
    });
    expect(scanned).toContainEqual(expect.objectContaining({ path: 'ok/c.jpg', problem: 'unreadable' }));
    expect(scanned).toContainEqual(expect.objectContaining({ path: 'ok/d.jpg', problem: 'damaged' }));
    const scanJson = await runCamroll(['scan', lib, '--json'], { env: clientEnv, as: NOBODY });
    expect(JSON.parse(scanJson.stdout)).toMatchObject({ unreadable: 1, damaged: 1 });
  });

  it('sync -q: warnings and errors only on stderr; the created profile is in the summary', async () => {
    const run = await runCamroll(['sync', lib, '--email', 'quiet-words@example.com', '-q'], {
      env: clientEnv,
      as: NOBODY,
    });
    expect(run.code).toBe(1);
    // No notice (the pass, the created user), no hint: the warning and the error.
    expect(run.stderr.trimEnd().split('\n')).toEqual([
      'camroll: warning: locked: permission denied (EACCES) [unreadable_folder]',
      'camroll: sync-complete was not called: 2 folders or files could not be read; nothing is lost: fix it and run ' +
        'sync again',
    ]);
    expect(run.stdout).toMatch(/^profile: +created by this run \(a real profile on the service\)$/m);
  });
});
