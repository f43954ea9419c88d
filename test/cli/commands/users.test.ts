import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { json, startTestServer } from '../../client/test-server.js';
import { runCli, useTempHome } from '../helpers/run-cli.js';
import { FRESH_STATS } from '../../helpers/stats.js';

const KEY = 'sk_test_directory_0001';
const ID = '3f1c2a8e-4b5d-4c6e-8f90-123456789abc';
const STATS = FRESH_STATS;

let home: ReturnType<typeof useTempHome>;
beforeEach(() => {
  home = useTempHome();
});
afterEach(() => home.cleanup());

describe('support: from an e-mail to a user, without creating one', () => {
  let server: Awaited<ReturnType<typeof startTestServer>>;
  beforeAll(async () => {
    server = await startTestServer((req, res) => {
      if (req.method === 'GET' && req.url === `/v1/users/${ID}/stats`) json(res, 200, STATS);
      else json(res, 404, { error: { code: 'not_found', message: 'no' } });
    });
  });
  afterAll(() => server.close());
  const remote = (args: string[]) =>
    runCli([...args, '--base-url', `${server.origin}/v1`], { env: { CAMROLL_API_KEY: KEY } });

  it('an e-mail not in the directory is a clear error naming --user and users create; nothing is sent', async () => {
    const before = server.seen.length;
    const result = await remote(['stats', '--email', 'Nobody@Example.com']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      `no user with e-mail Nobody@Example.com is known on this machine for ${server.origin}/v1`,
    );
    expect(result.stderr).toContain('--user <uuid>');
    expect(result.stderr).toContain('camroll users create --email');
    expect(result.stderr).toContain('[unknown_email]');
    expect(server.seen.length).toBe(before);
  });

  it('users import shows the first 20 bad lines and counts the rest; a file it cannot read opens nothing', async () => {
    const file = join(home.home, 'many-bad.csv');
    const bad = Array.from({ length: 25 }, (_, n) => `b${n}@example.com,not-a-uuid`);
    writeFileSync(file, `email,user_id\n${bad.join('\n')}\nfan@example.com,${ID}\n`);
    const imported = await remote(['users', 'import', file]);
    expect(imported.code).toBe(1);
    expect(imported.stdout).toBe(
      `imported 1 user for ${server.origin}/v1: 1 added, 0 updated, 0 unchanged; 25 lines skipped\n`,
    );
    const lines = imported.stderr.trimEnd().split('\n');
    expect(lines).toHaveLength(21);
    expect(lines[0]).toBe(`camroll: warning: ${file}:2: not a user id (a UUID): not-a-uuid`);
    expect(lines[19]).toBe(`camroll: warning: ${file}:21: not a user id (a UUID): not-a-uuid`);
    expect(lines[20]).toBe('camroll: … and 5 more');

    const fresh = useTempHome();
    try {
      const missing = await runCli(['users', 'import', join(fresh.home, 'missing.csv')], {
        paths: fresh.paths,
        env: { CAMROLL_API_KEY: KEY, CAMROLL_BASE_URL: `${server.origin}/v1` },
      });
      expect(missing.code).toBe(2);
      expect(missing.stderr).toContain('cannot read');
      expect(existsSync(join(fresh.paths.data, 'users.sqlite3'))).toBe(false);
    } finally {
      fresh.cleanup();
    }
  });

  it('users import fills the directory from a partner export; bad lines are named and skipped', async () => {
    const file = join(home.home, 'export.csv');
    writeFileSync(file, `user_id,email,plan\n${ID},Fan@Example.com,gold\nnot-a-uuid,x@example.com,free\n\n`);
    const imported = await remote(['users', 'import', file]);
    expect(imported.code).toBe(1);
    expect(imported.stdout).toBe(
      `imported 1 user for ${server.origin}/v1: 1 added, 0 updated, 0 unchanged; 1 line skipped\n`,
    );
    expect(imported.stderr).toBe(`camroll: warning: ${file}:3: not a user id (a UUID): not-a-uuid\n`);

    const stats = await remote(['stats', '--email', 'fan@example.com', '--json']);
    expect(stats.code).toBe(0);
    expect(JSON.parse(stats.stdout)).toEqual(STATS);
    expect(server.seen.at(-1)).toMatchObject({ method: 'GET', url: `/v1/users/${ID}/stats` });
    expect(server.seen.some((r) => r.method === 'POST')).toBe(false);

    const list = await runCli(['users', 'list', '--json']);
    expect(JSON.parse(list.stdout)).toEqual([
      expect.objectContaining({
        email: 'fan@example.com',
        user_id: ID,
        target: `${server.origin}/v1`,
        source: 'import',
      }),
    ]);
    const show = await remote(['users', 'show', '--email', 'FAN@example.com']);
    expect(show.code).toBe(0);
    expect(show.stdout).toMatch(
      new RegExp(`fan@example\\.com +${ID} +${server.origin}/v1 .*import +\\(current target\\)`),
    );

    const forget = await remote(['users', 'forget', '--email', 'fan@example.com']);
    expect(forget.stdout).toBe('forgot fan@example.com at 1 target\n');
    expect((await remote(['stats', '--email', 'fan@example.com'])).code).toBe(1);
  });

  it('ids an older camroll kept in config.json are taken over once, and the file is written without them', async () => {
    const configDir = join(home.home, 'config', 'camroll');
    mkdirSync(configDir, { recursive: true });
    writeFileSync(
      join(configDir, 'config.json'),
      JSON.stringify({
        current_profile: null,
        profiles: {},
        users: { [`${server.origin}/v1`]: { 'old@example.com': ID } },
      }),
    );
    const stats = await remote(['stats', '--email', 'old@example.com', '--json']);
    expect(stats.code).toBe(0);
    expect(server.seen.at(-1)).toMatchObject({ method: 'GET', url: `/v1/users/${ID}/stats` });
    expect(JSON.parse(readFileSync(join(configDir, 'config.json'), 'utf8'))).toEqual({
      current_profile: null,
      profiles: {},
      users: {},
    });
    const list = await runCli(['users', 'list', '--json']);
    expect(JSON.parse(list.stdout)).toEqual([
      expect.objectContaining({ email: 'old@example.com', user_id: ID, source: 'found' }),
    ]);
  });

  it('--user and --email together, or neither, are usage errors', async () => {
    expect((await remote(['events', '--user', ID, '--email', 'a@example.com'])).code).toBe(2);
    const neither = await remote(['stats']);
    expect(neither.code).toBe(2);
    expect(neither.stderr).toContain('give --user <uuid>, or --email <email> of a user known on this machine');
  });
});

describe('users created here are in the directory (embedded service)', () => {
  it('users create, then events and stats by e-mail; list shows first and last seen', async () => {
    const created = await runCli(['users', 'create', '--email', 'New.Fan@example.com', '--json']);
    expect(created.code).toBe(0);
    const userId = JSON.parse(created.stdout).user_id as string;
    const stats = await runCli(['stats', '--email', 'new.fan@example.com', '--json']);
    expect(stats.code).toBe(0);
    expect(JSON.parse(stats.stdout)).toMatchObject({ total_events: 0, has_synced: false });
    const events = await runCli(['events', '--email', 'new.fan@example.com', '--json']);
    expect(events.code).toBe(0);
    expect(JSON.parse(events.stdout)).toMatchObject({ events: [], has_more: false });
    const list = await runCli(['users', 'list']);
    expect(list.stdout).toMatch(/^E-MAIL +USER ID +TARGET +FIRST SEEN +LAST SEEN +SOURCE$/m);
    expect(list.stdout).toMatch(
      new RegExp(
        `new\\.fan@example\\.com +${userId} +embedded:.+service\\.db +\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d +.+ created`,
      ),
    );
  });

  it('an empty directory says how it is filled', async () => {
    const list = await runCli(['users', 'list']);
    expect(list.stdout).toContain('No users known on this machine');
    expect((await runCli(['users', 'list', '--json'])).stdout).toBe('[]\n');
  });
});
