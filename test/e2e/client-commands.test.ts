import { spawn, spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, collect, ROOT, runCamroll, type RunResult } from './helpers/camroll.js';
import { useTempHomes } from './helpers/temp-homes.js';
import { startServe, type ServeHandle } from './helpers/serve.js';

const KEY = 'sk_local_e2e_client_commands_secret_9f3a';
const hasScript = spawnSync('script', ['--version'], { stdio: 'ignore' }).status === 0;
const outputs: RunResult[] = [];
const makeHome = useTempHomes('camroll-client-e2e-');
let serve: ServeHandle;
let env: NodeJS.ProcessEnv;

/** Runs the binary and keeps its output for the key-leak check at the end. */
async function camroll(args: string[], runEnv: NodeJS.ProcessEnv = env, stdin?: string): Promise<RunResult> {
  const result = await runCamroll(args, { env: runEnv, stdin, timeoutMs: 60_000 });
  outputs.push(result);
  return result;
}

/** Checks an exit code, showing the output when it differs. */
function expectExit(result: RunResult, code: number): void {
  expect(result.code, `stdout: ${result.stdout}\nstderr: ${result.stderr}`).toBe(code);
}

function home(): NodeJS.ProcessEnv {
  return makeHome().env;
}

beforeAll(async () => {
  const serveEnv = { ...home(), CAMROLL_API_KEY: KEY };
  serve = await startServe({ env: serveEnv, db: ':memory:' });
  env = { ...home(), CAMROLL_BASE_URL: serve.baseUrl, CAMROLL_API_KEY: KEY };
});

afterAll(async () => {
  const stopped = await serve?.stop();
  if (stopped) outputs.push(stopped);
});

describe('client commands against camroll serve', () => {
  it('ping answers without a key', async () => {
    const { CAMROLL_API_KEY: _, ...noKey } = env;
    const result = await camroll(['ping'], noKey);
    expectExit(result, 0);
    expect(result.stdout).toContain(serve.baseUrl);
  });

  it(
    'health prints partner and environment; a sandbox key of camroll serve on this machine makes no real profiles, ' +
      'so no warning',
    async () => {
      const json = await camroll(['health', '--json']);
      expectExit(json, 0);
      const body = JSON.parse(json.stdout);
      expect(body).toMatchObject({ status: 'ok', environment: 'sandbox' });
      expect(typeof body.partner_id).toBe('string');
      expect(json.stderr).toBe('');
      const human = await camroll(['health']);
      expect(human.stdout).toMatch(/environment\s+sandbox/);
      expect(human.stdout).toMatch(/rate limit\s+not throttled/);
    },
  );

  it('users create makes a user, then finds the same one', async () => {
    const first = await camroll([
      'users',
      'create',
      '--email',
      'e2e-user@example.com',
      '--first-name',
      'Ada',
      '--city',
      'Lyon',
      '--json',
    ]);
    expectExit(first, 0);
    const created = JSON.parse(first.stdout);
    expect(created.existing).toBe(false);
    const again = await camroll(['users', 'create', '--email', 'E2E-User@example.com ']);
    expectExit(again, 0);
    expect(again.stdout).toContain(`existing user ${created.user_id}`);
  });

  it('events and stats of a fresh user', async () => {
    const user = JSON.parse((await camroll(['users', 'create', '--email', 'fresh@example.com', '--json'])).stdout)
      .user_id as string;
    const page = await camroll(['events', '--user', user, '--json']);
    expectExit(page, 0);
    expect(JSON.parse(page.stdout)).toMatchObject({ events: [], has_more: false, next_cursor: null });
    const all = await camroll(['events', '--user', user, '--all', '--no-media', '--json']);
    expect(JSON.parse(all.stdout)).toEqual({ events: [], total: 0 });
    const human = await camroll(['events', '--user', user]);
    expect(human.stdout).toContain('No matched events.');

    const stats = await camroll(['stats', '--user', user, '--json']);
    expectExit(stats, 0);
    expect(JSON.parse(stats.stdout)).toMatchObject({
      total_events: 0,
      has_synced: false,
      sports_count: 0,
      unique_venues: [],
    });
    const readable = await camroll(['stats', '--user', user]);
    expectExit(readable, 0);
    expect(readable.stdout).toMatch(/Events\s+0 \(0 concerts, 0 sports\)/);
  });

  it('uses a --base-url flag whole, trailing slash and all', async () => {
    const { CAMROLL_BASE_URL: _, ...noUrl } = env;
    const result = await camroll(['health', '--json', '--base-url', `${serve.baseUrl}/`], noUrl);
    expectExit(result, 0);
  });

  // Usage errors (exit 2) of every command run in-process: test/cli/surface.test.ts.

  it('reports an unknown user with its code and exit 1', async () => {
    const result = await camroll(['stats', '--user', randomUUID()]);
    expectExit(result, 1);
    expect(result.stderr).toMatch(/^camroll: .*\[user_not_found\]$/m);
  });

  it('reports a wrong key with its code and never prints it', async () => {
    const wrong = 'sk_wrong_key_that_must_not_leak_1234';
    const result = await camroll(['health'], { ...env, CAMROLL_API_KEY: wrong });
    expectExit(result, 1);
    expect(result.stderr).toContain('[invalid_api_key]');
    expect(result.stdout + result.stderr).not.toContain(wrong);
  });

  it('asks for a key when a base URL has none', async () => {
    const result = await camroll(['health'], { ...home(), CAMROLL_BASE_URL: serve.baseUrl });
    expectExit(result, 1);
    expect(result.stderr).toContain('camroll config set-key');
    expect(result.stderr).toContain('[missing_api_key]');
  });
});

describe('camroll config', () => {
  it('stores a profile with a key read from stdin, shows it masked, in a 0600 file, and uses it', async () => {
    const plain = home();
    expectExit(await camroll(['config', 'set-url', `${serve.baseUrl}/`, '--profile', 'local'], plain), 0);
    const setKey = await camroll(['config', 'set-key', '--profile', 'local'], plain, `${KEY}\n`);
    expectExit(setKey, 0);

    const path = (await camroll(['config', 'path'], plain)).stdout.trim();
    expect(path.startsWith(plain.XDG_CONFIG_HOME as string)).toBe(true);
    expect(statSync(path).mode & 0o777).toBe(0o600);

    const show = await camroll(['config', 'show', '--json'], plain);
    expect(JSON.parse(show.stdout)).toMatchObject({
      profile: 'local',
      base_url: serve.baseUrl,
      api_key: `••••${KEY.slice(-4)}`,
      api_key_source: 'profile',
      target: 'remote',
    });
    const list = await camroll(['config', 'list'], plain);
    expect(list.stdout).toMatch(/\*\s+local/);

    // The stored profile alone is enough to reach the service.
    const health = await camroll(['health', '--json'], plain);
    expectExit(health, 0);
    // The environment outranks the stored key.
    const envWins = await camroll(['health'], { ...plain, CAMROLL_API_KEY: 'sk_env_override_0000' });
    expect(envWins.stderr).toContain('[invalid_api_key]');

    expectExit(await camroll(['config', 'unset-key', '--profile', 'local'], plain), 0);
    expect(JSON.parse((await camroll(['config', 'show', '--json'], plain)).stdout).api_key).toBeNull();
    expectExit(await camroll(['config', 'remove', 'local'], plain), 0);
  });

  it('takes the key from CAMROLL_API_KEY when stdin is empty, and refuses when there is none', async () => {
    const plain = home();
    for (const name of ['x', 'y'])
      expectExit(await camroll(['config', 'set-url', serve.baseUrl, '--profile', name], plain), 0);
    const fromEnv = await camroll(['config', 'set-key', '--profile', 'x'], { ...plain, CAMROLL_API_KEY: KEY }, '');
    expectExit(fromEnv, 0);
    const none = await camroll(['config', 'set-key', '--profile', 'y'], plain, '');
    expectExit(none, 2);
  });

  const TITLE = 'set-key waiting at its prompt keeps a profile another camroll added meanwhile';
  it.skipIf(!hasScript)(hasScript ? TITLE : `${TITLE} (skipped: needs util-linux script)`, async () => {
    const plain = home();
    expectExit(await camroll(['config', 'set-url', serve.baseUrl, '--profile', 'a'], plain), 0);
    const command = [process.execPath, BIN, 'config', 'set-key', '--profile', 'a'].map((a) => `'${a}'`).join(' ');
    const child = spawn('script', ['-qec', `exec ${command}`, '/dev/null'], {
      env: { ...plain, TERM: 'xterm' },
      cwd: ROOT,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const done = collect(child, 60_000);
    // The prompt shows once the command has read the configuration and waits for the key.
    await new Promise<void>((resolve, reject) => {
      let seen = '';
      const look = (chunk: string): void => {
        seen += chunk;
        if (seen.includes('API key for profile a:')) resolve();
      };
      child.stdout?.on('data', look);
      child.stderr?.on('data', look);
      child.on('close', () => reject(new Error(`set-key ended before its prompt: ${seen}`)));
    });
    expectExit(await camroll(['config', 'set-url', 'http://127.0.0.2:9/v1', '--profile', 'b'], plain), 0);
    child.stdin?.write(`${KEY}\r`);
    const setKey = await done;
    outputs.push(setKey);
    expect(setKey.code, setKey.stdout + setKey.stderr).toBe(0);
    const list = await camroll(['config', 'list', '--json'], plain);
    const names = (JSON.parse(list.stdout) as Array<{ name: string }>).map((p) => p.name);
    expect(names).toEqual(['a', 'b']);
    const path = (await camroll(['config', 'path'], plain)).stdout.trim();
    expect(statSync(path).mode & 0o777).toBe(0o600);
  });
});

describe('embedded default', () => {
  it('runs commands against the in-process service when no base URL is configured', async () => {
    const plain = home();
    const first = await camroll(['users', 'create', '--email', 'local@example.com', '--json'], plain);
    expectExit(first, 0);
    expect(first.stderr).toContain('using the embedded local service');
    expect(first.stderr).toContain(join(plain.XDG_DATA_HOME as string, 'camroll'));
    const user = JSON.parse(first.stdout);
    expect(user.existing).toBe(false);

    // The database persists in the data folder between runs.
    const again = await camroll(['users', 'create', '--email', 'local@example.com', '--json'], plain);
    expect(JSON.parse(again.stdout)).toMatchObject({ user_id: user.user_id, existing: true });
    const stats = await camroll(['stats', '--user', user.user_id, '--json'], plain);
    expectExit(stats, 0);
    expect(JSON.parse(stats.stdout).total_events).toBe(0);
  });
});

describe('secrecy', () => {
  it('never printed the key', () => {
    expect(outputs.length).toBeGreaterThan(10);
    for (const { stdout, stderr } of outputs) expect(stdout + stderr).not.toContain(KEY);
  });
});
