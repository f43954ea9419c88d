import { cpSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startService } from '../../../src/service/server.js';
import { runCli, useTempHome } from '../helpers/run-cli.js';

const LIBRARY = join(import.meta.dirname, '..', '..', '..', 'fixtures', 'library', 'events');
let home: ReturnType<typeof useTempHome>;
let lib: string;
beforeEach(() => {
  home = useTempHome();
  lib = mkdtempSync(join(tmpdir(), 'camroll-plan-'));
  cpSync(LIBRARY, lib, { recursive: true });
});
afterEach(() => {
  home.cleanup();
  rmSync(lib, { recursive: true, force: true });
});

type Plan = { sent: number; plan?: { new: number; changed: number; pending: number; already_answered: number } };
const dryRun = async (...extra: string[]) => {
  const result = await runCli(['sync', lib, '--email', 'plan@example.com', '--dry-run', '--json', ...extra]);
  return { ...result, summary: JSON.parse(result.stdout) as Plan };
};

describe('sync --dry-run plans from the journal, with read-only calls', () => {
  it('before any sync: the e-mail is unknown, so everything would be sent; nothing is created', async () => {
    const { code, summary, stderr } = await dryRun();
    expect(code).toBe(0);
    expect(summary.plan).toBeUndefined();
    expect(stderr).toContain('plan@example.com is not known on this machine');
    // The lookup only read the directory: no file was made for it.
    expect(existsSync(join(home.paths.data, 'users.sqlite3'))).toBe(false);
    expect((await runCli(['users', 'list', '--json'])).stdout).toBe('[]\n');
  });

  it('after a full sync: nothing to send; a new file is new, a changed one is new under its new id', async () => {
    expect((await runCli(['sync', lib, '--email', 'plan@example.com', '--allow-empty'])).code).toBe(0);
    const after = await dryRun();
    expect(after.code).toBe(0);
    expect(after.stderr).toContain('a real run would be an incremental pass (has_synced true)');
    expect(after.summary.plan).toMatchObject({ new: 0, changed: 0, pending: 0 });
    expect(after.summary.plan!.already_answered).toBeGreaterThan(0);
    expect(after.summary.sent).toBe(0);

    cpSync(join(LIBRARY, 'cape-town', 'IMG_7001.jpg'), join(lib, 'copy-with-new-bytes.jpg'));
    writeFileSync(join(lib, 'copy-with-new-bytes.jpg'), Buffer.from('extra bytes change the id'), { flag: 'a' });
    const later = await dryRun();
    expect(later.summary.plan).toMatchObject({ new: 1, changed: 0, pending: 0 });
    expect(later.summary.sent).toBe(1);
  });

  it('with the host gone, counts from the journal alone and says so', async () => {
    const key = 'sk_test_plan_0001';
    const service = await startService({
      host: '127.0.0.1',
      port: 0,
      dbPath: ':memory:',
      dataDir: join(home.home, 'service'),
      env: { CAMROLL_API_KEY: key },
    });
    const env = { CAMROLL_API_KEY: key };
    const synced = await runCli(['sync', lib, '--email', 'plan@example.com', '--base-url', service.baseUrl], { env });
    expect(synced.code, synced.stderr).toBe(0);
    await service.close();
    const result = await runCli(
      [
        'sync',
        lib,
        '--email',
        'plan@example.com',
        '--base-url',
        service.baseUrl,
        '--retries',
        '0',
        '--dry-run',
        '--json',
      ],
      { env },
    );
    expect(result.code).toBe(0);
    expect(result.stderr).toContain('could not check with the service');
    expect(result.stderr).toContain('counting from the local journal alone');
    const summary = JSON.parse(result.stdout) as Plan;
    expect(summary.plan).toMatchObject({ new: 0, changed: 0, pending: 0 });
    expect(summary.plan!.already_answered).toBeGreaterThan(0);
  });
});
