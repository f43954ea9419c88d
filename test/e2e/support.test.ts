import { randomUUID } from 'node:crypto';
import { readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCamroll, type RunResult } from './helpers/camroll.js';
import { useTempHomes } from './helpers/temp-homes.js';
import { startServe, type ServeHandle } from './helpers/serve.js';

/*
 * Support staff checking one user from an e-mail, and setting a machine up, with the real
 * binary: the directory of users known on this machine round-trips through `users list --json`
 * and `users import`; a lookup (`stats`/`events --email`) writes nothing, whatever it finds;
 * set-up mistakes are caught by the command that makes them.
 */

const KEY = 'sk_local_e2e_support_directory_7c1d';
/** A second target that is never called: entries there are only read from the directory. */
const OTHER = 'http://127.0.0.1:9/v1';
const home = useTempHomes('camroll-support-e2e-');
let serve: ServeHandle;

function expectExit(result: RunResult, code: number): void {
  expect(result.code, `stdout: ${result.stdout}\nstderr: ${result.stderr}`).toBe(code);
}

/**
 * Every file under a folder with its size and modification time: what a command that writes nothing leaves as it was.
 */
function snapshot(dir: string): Record<string, string> {
  const files: Record<string, string> = {};
  for (const name of readdirSync(dir, { recursive: true }).map(String).sort()) {
    const stat = statSync(join(dir, name));
    files[name] = stat.isDirectory() ? 'dir' : `${stat.size} ${stat.mtimeMs}`;
  }
  return files;
}

interface ListedEntry {
  email: string;
  user_id: string;
  target: string;
}

beforeAll(async () => {
  serve = await startServe({ env: { ...home().env, CAMROLL_API_KEY: KEY }, db: ':memory:' });
});

afterAll(async () => {
  await serve?.stop();
});

describe('the user directory round-trips through users list --json and users import', () => {
  it('all 11 entries, at their own two targets, come back on another machine', async () => {
    const first = home();
    const env = { ...first.env, CAMROLL_BASE_URL: serve.baseUrl, CAMROLL_API_KEY: KEY };
    const here = Array.from({ length: 8 }, (_, i) => `fan${i}@example.com,${randomUUID()}`);
    const there = Array.from({ length: 3 }, (_, i) => `away${i}@example.com,${randomUUID()}`);
    writeFileSync(join(first.dir, 'here.csv'), `email,user_id\n${here.join('\n')}\n`);
    writeFileSync(join(first.dir, 'there.csv'), `${there.join('\n')}\n`);
    expectExit(await runCamroll(['users', 'import', join(first.dir, 'here.csv')], { env }), 0);
    expectExit(await runCamroll(['users', 'import', join(first.dir, 'there.csv'), '--base-url', OTHER], { env }), 0);

    const listed = await runCamroll(['users', 'list', '--json'], { env });
    expectExit(listed, 0);
    const entries = JSON.parse(listed.stdout) as ListedEntry[];
    expect(entries).toHaveLength(11);
    const exported = join(first.dir, 'users.json');
    writeFileSync(exported, listed.stdout);

    // Another machine, pointed at neither target: each entry keeps the target it was listed with.
    const second = home();
    const imported = await runCamroll(['users', 'import', exported], { env: second.env });
    expectExit(imported, 0);
    expect(imported.stdout).toBe('imported 11 users for 2 targets: 11 added, 0 updated, 0 unchanged\n');
    expect(imported.stderr).toBe('');
    const again = JSON.parse(
      (await runCamroll(['users', 'list', '--json'], { env: second.env })).stdout,
    ) as ListedEntry[];
    const key = (e: ListedEntry) => `${e.target} ${e.email} ${e.user_id}`;
    expect(again.map(key)).toEqual(entries.map(key));

    // Once more is a no-op; a one-line array (jq -c) reads the same.
    writeFileSync(exported, `${JSON.stringify(entries)}\n`);
    const twice = await runCamroll(['users', 'import', exported], { env: second.env });
    expect(twice.stdout).toBe('imported 11 users for 2 targets: 0 added, 0 updated, 11 unchanged\n');
  });
});

describe('a lookup by e-mail writes nothing, and its hints say what to do', () => {
  let machine: { dir: string; env: NodeJS.ProcessEnv };
  let env: NodeJS.ProcessEnv;
  let realId: string;
  const staleId = randomUUID();

  beforeAll(async () => {
    machine = home();
    env = { ...machine.env, CAMROLL_BASE_URL: serve.baseUrl, CAMROLL_API_KEY: KEY };
  });

  it('an unknown e-mail on a fresh machine: exit 1, no file created (not even the directory)', async () => {
    const before = snapshot(machine.dir);
    const run = await runCamroll(['stats', '--email', 'unknown@example.com'], { env });
    expectExit(run, 1);
    expect(run.stderr).toContain(
      `no user with e-mail unknown@example.com is known on this machine for ${serve.baseUrl} [unknown_email]`,
    );
    expect(snapshot(machine.dir)).toEqual(before);
    expectExit(await runCamroll(['users', 'list', '--json'], { env }), 0);
    expect(snapshot(machine.dir)).toEqual(before);
  });

  it('a known e-mail: the answer, and the directory as it was (no last seen bump, no -wal or -shm left)', async () => {
    const created = await runCamroll(['users', 'create', '--email', 'real.fan@example.com', '--json'], { env });
    expectExit(created, 0);
    realId = (JSON.parse(created.stdout) as { user_id: string }).user_id;
    writeFileSync(join(machine.dir, 'more.csv'), `stale@example.com,${staleId}\n`);
    expectExit(await runCamroll(['users', 'import', join(machine.dir, 'more.csv')], { env }), 0);
    writeFileSync(join(machine.dir, 'away.csv'), `away@example.com,${randomUUID()}\n`);
    expectExit(await runCamroll(['users', 'import', join(machine.dir, 'away.csv'), '--base-url', OTHER], { env }), 0);

    const before = snapshot(machine.dir);
    expect(Object.keys(before).filter((name) => name.includes('users.sqlite3'))).toEqual([
      join('data', 'camroll', 'users.sqlite3'),
    ]);
    const stats = await runCamroll(['stats', '--email', 'Real.Fan@example.com', '--json'], { env });
    expectExit(stats, 0);
    expect(JSON.parse(stats.stdout)).toMatchObject({ total_events: 0 });
    const events = await runCamroll(['events', '--email', 'real.fan@example.com', '--json'], { env });
    expectExit(events, 0);
    expect(snapshot(machine.dir)).toEqual(before);
    const listed = JSON.parse((await runCamroll(['users', 'list', '--json'], { env })).stdout) as (ListedEntry & {
      last_seen: string;
      first_seen: string;
    })[];
    const real = listed.find((e) => e.email === 'real.fan@example.com');
    expect(real).toMatchObject({ user_id: realId });
    expect(real?.last_seen).toBe(real?.first_seen);
  });

  it('a typo gets "did you mean"; an e-mail known at another target names the flag that reaches it', async () => {
    const before = snapshot(machine.dir);
    const typo = await runCamroll(['events', '--email', 'real.fna@example.com'], { env });
    expectExit(typo, 1);
    expect(typo.stderr).toContain('  did you mean real.fan@example.com? (known on this machine for this target)');
    expect(typo.stderr).toContain('  give --user <uuid>, or add it with `camroll users import FILE`');

    const away = await runCamroll(['stats', '--email', 'away@example.com'], { env });
    expectExit(away, 1);
    expect(away.stderr).toMatch(
      new RegExp(
        `it is known for ${OTHER.replace(/[.]/g, '\\.')} \\(user [0-9a-f-]{36}\\): add --base-url ${OTHER.replace(/[.]/g, '\\.')}\n`,
      ),
    );
    expect(snapshot(machine.dir)).toEqual(before);
  });

  it('a 404 for an entry of the directory says to forget it, with the flags that reach the same target', async () => {
    const { CAMROLL_BASE_URL: _, ...unset } = env;
    const before = snapshot(machine.dir);
    const stale = await runCamroll(['stats', '--email', 'stale@example.com', '--base-url', serve.baseUrl], {
      env: unset,
    });
    expectExit(stale, 1);
    expect(stale.stderr).toContain(`[user_not_found]`);
    expect(stale.stderr).toContain(staleId);
    const forget = `camroll users forget --email stale@example.com --base-url ${serve.baseUrl}`;
    expect(stale.stderr).toContain(`drop the entry with \`${forget}\``);
    expect(snapshot(machine.dir)).toEqual(before);

    // The suggested command works as printed.
    const forgot = await runCamroll(forget.split(' ').slice(1), { env: unset });
    expectExit(forgot, 0);
    expect(forgot.stdout).toBe('forgot stale@example.com at 1 target\n');
    const gone = await runCamroll(['stats', '--email', 'stale@example.com'], { env });
    expect(gone.stderr).toContain('[unknown_email]');
  });
});

describe('set-up mistakes are caught when made (real binary against camroll serve)', () => {
  interface DoctorReport {
    checks: { name: string; status: string; detail: string; hint?: string }[];
    summary: { ok: boolean };
  }

  it(
    'set-url without a version path warns; set-key for a misspelt profile is refused; serve on this machine is no ' +
      'real profile',
    async () => {
      const { env } = home();
      const origin = serve.baseUrl.replace(/\/v1$/, '');
      const bare = await runCamroll(['config', 'set-url', origin, '--profile', 'local'], { env });
      expectExit(bare, 0);
      expect(bare.stderr).toBe(
        `camroll: warning: the base URL has no version path: did you mean ${serve.baseUrl}? ` +
          `(set it with \`camroll config set-url ${serve.baseUrl} --profile local\`)\n`,
      );
      const fixed = await runCamroll(['config', 'set-url', serve.baseUrl, '--profile', 'local'], { env });
      expectExit(fixed, 0);
      expect(fixed.stderr).toBe('');

      const typo = await runCamroll(['config', 'set-key', '--profile', 'lcoal'], { env, stdin: `${KEY}\n` });
      expectExit(typo, 2);
      expect(typo.stderr).toContain(
        'no profile named "lcoal"; create it first with `camroll config set-url <url> --profile lcoal`',
      );
      const listed = JSON.parse((await runCamroll(['config', 'list', '--json'], { env })).stdout) as { name: string }[];
      expect(listed.map((p) => p.name)).toEqual(['local']);
      expectExit(await runCamroll(['config', 'set-key', '--profile', 'local'], { env, stdin: `${KEY}\n` }), 0);

      const health = await runCamroll(['health'], { env });
      expectExit(health, 0);
      expect(health.stdout).toMatch(/environment\s+sandbox/);
      expect(health.stderr).toBe('');

      const doctor = await runCamroll(['doctor', '--json'], { env });
      expectExit(doctor, 0);
      const report = JSON.parse(doctor.stdout) as DoctorReport;
      expect(report.checks.find((c) => c.name === 'key.environment')).toEqual({
        name: 'key.environment',
        status: 'pass',
        detail: 'sandbox (a service on this machine: a local database)',
      });
      expect(doctor.stdout).not.toContain('real profiles');
    },
  );

  it('doctor at a base URL without its version path: every failed check has a hint', async () => {
    const { env } = home();
    const origin = serve.baseUrl.replace(/\/v1$/, '');
    const doctor = await runCamroll(['doctor', '--base-url', origin, '--json'], {
      env: { ...env, CAMROLL_API_KEY: KEY },
    });
    expectExit(doctor, 1);
    const report = JSON.parse(doctor.stdout) as DoctorReport;
    const failed = report.checks.filter((c) => c.status === 'fail');
    expect(failed.map((c) => c.name)).toEqual(['reach.ping']);
    expect(failed[0]?.hint).toBe(`no version prefix: did you mean ${serve.baseUrl}? (it answers /ping)`);
    const human = await runCamroll(['doctor', '--base-url', origin], { env: { ...env, CAMROLL_API_KEY: KEY } });
    expect(human.stdout).toContain(`  reach.ping: no version prefix: did you mean ${serve.baseUrl}?`);
  });
});
