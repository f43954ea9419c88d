import * as fs from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { json, startTestServer } from '../client/test-server.js';
import { runCli, useTempHome } from './helpers/run-cli.js';
import { FRESH_STATS } from '../helpers/stats.js';

// Every read of a file goes through this spy; the reads of config.json are counted.
vi.mock('node:fs', async (importOriginal) => {
  const original = await importOriginal<typeof import('node:fs')>();
  return { ...original, readFileSync: vi.fn(original.readFileSync) };
});

const KEY = 'sk_test_config_reads_01';
const ID = '3f1c2a8e-4b5d-4c6e-8f90-123456789abc';

let home: ReturnType<typeof useTempHome>;
beforeEach(() => {
  home = useTempHome();
});
afterEach(() => home.cleanup());

/** The command's output, and how many times it read the configuration file. */
async function counted(args: string[]): Promise<{ code: number; stdout: string; stderr: string; reads: number }> {
  const spy = vi.mocked(fs.readFileSync);
  spy.mockClear();
  const result = await runCli(args);
  const reads = spy.mock.calls.filter(([path]) => String(path) === join(home.paths.config, 'config.json')).length;
  return { ...result, reads };
}

describe('the configuration file is read once per command', () => {
  let server: Awaited<ReturnType<typeof startTestServer>>;
  beforeAll(async () => {
    server = await startTestServer((req, res) => {
      if (req.method === 'GET' && req.url === `/v1/users/${ID}/stats`) json(res, 200, FRESH_STATS);
      else json(res, 404, { error: { code: 'not_found', message: 'no' } });
    });
  });
  afterAll(() => server.close());

  beforeEach(async () => {
    expect((await runCli(['config', 'set-url', `${server.origin}/v1`, '--profile', 'main'])).code).toBe(0);
    expect((await runCli(['config', 'set-key', '--profile', 'main'], { stdin: `${KEY}\n` })).code).toBe(0);
    const file = join(home.home, 'export.csv');
    fs.writeFileSync(file, `user_id,email\n${ID},fan@example.com\n`);
    expect((await runCli(['users', 'import', file])).code).toBe(0);
  });

  it('stats --email: the target, the directory and the connection share one read', async () => {
    const stats = await counted(['stats', '--email', 'fan@example.com', '--json']);
    expect(stats.code, stats.stderr).toBe(0);
    expect(JSON.parse(stats.stdout)).toEqual(FRESH_STATS);
    expect(stats.reads).toBe(1);
  });

  it('an unknown e-mail known at another target: the hint names the profile from the same read', async () => {
    const other = await counted(['stats', '--email', 'fan@example.com', '--base-url', 'http://127.0.0.1:9/v1']);
    expect(other.code).toBe(1);
    expect(other.stderr).toContain('add --profile main');
    expect(other.reads).toBe(1);
  });

  it('sync --dry-run: the target, the lookup and the read-only calls share one read', async () => {
    const library = join(home.home, 'empty-library');
    fs.mkdirSync(library);
    const dry = await counted(['sync', library, '--email', 'fan@example.com', '--dry-run', '--allow-empty']);
    expect(dry.code, dry.stderr).toBe(0);
    // The e-mail was found in the directory: the journal looked for is this user's.
    expect(dry.stderr).toContain('no sync journal for this user and target');
    expect(dry.reads).toBe(1);
  });

  it('doctor and config show read it once', async () => {
    const doctor = await counted(['doctor', '--json']);
    expect(JSON.parse(doctor.stdout)).toHaveProperty('checks');
    expect(doctor.reads).toBe(1);
    const show = await counted(['config', 'show', '--json']);
    expect(JSON.parse(show.stdout)).toMatchObject({ profile: 'main', api_key_source: 'profile' });
    expect(show.stdout).not.toContain(KEY);
    expect(show.reads).toBe(1);
  });
});
