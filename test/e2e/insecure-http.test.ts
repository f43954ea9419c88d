import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json, startTestServer } from '../client/test-server.js';
import { ROOT, runCamroll, tempHome } from './helpers/camroll.js';

const KEY = 'sk_live_never_in_clear_text_0451';
const REMOTE = 'http://192.0.2.2:8787/v1';
const GUARD = pathToFileURL(join(import.meta.dirname, 'helpers', 'connect-guard.mjs')).href;

/**
 * Plain http:// is for this machine: to any other host the key would cross the network in clear
 * text, so the request is refused before a connection is made, unless the user opted in. The
 * binary runs with a guard that logs every connection it starts and fails any that is not
 * loopback: nothing here reaches another host.
 */
describe('plain http:// to a host that is not this machine', () => {
  const home = tempHome();
  const connections = join(home.dir, 'connections.log');
  let local: Awaited<ReturnType<typeof startTestServer>>;
  beforeAll(async () => {
    const limits = { enabled: false, limit: null, window_seconds: null };
    local = await startTestServer((_req, res) =>
      json(res, 200, { status: 'ok', partner_id: 'local', environment: 'sandbox', rate_limit: limits }),
    );
  });
  afterAll(async () => {
    await local.close();
    rmSync(home.dir, { recursive: true, force: true });
  });
  const run = (args: string[], env: NodeJS.ProcessEnv = {}, stdin?: string) => {
    rmSync(connections, { force: true });
    return runCamroll(args, {
      ...(stdin === undefined ? {} : { stdin }),
      env: {
        ...home.env,
        CAMROLL_API_KEY: KEY,
        NODE_OPTIONS: `--import=${GUARD}`,
        CAMROLL_TEST_CONNECT_LOG: connections,
        ...env,
      },
    });
  };
  const connected = (): string[] =>
    existsSync(connections) ? readFileSync(connections, 'utf8').trim().split('\n').filter(Boolean) : [];

  it('is refused before any connection, naming https://, from a flag or the environment', async () => {
    for (const [args, env] of [
      [['health', '--base-url', REMOTE], {}],
      [['health'], { CAMROLL_BASE_URL: REMOTE }],
      [['ping', '--base-url', REMOTE], {}],
      [
        [
          'sync',
          join(ROOT, 'fixtures', 'library', 'events', 'cape-town'),
          '--user',
          '3f1c2a8e-4b5d-4c6e-8f90-123456789abc',
          '--base-url',
          REMOTE,
        ],
        {},
      ],
    ] as const) {
      const result = await run([...args], env);
      expect(result.code, result.stderr).toBe(1);
      expect(result.stderr).toContain('https://192.0.2.2:8787/v1');
      expect(result.stderr).toContain('[insecure_base_url]');
      expect(result.stderr).toContain('--allow-insecure-http');
      expect(connected()).toEqual([]);
    }
  });

  it('http:// to this machine needs no opt-in', async () => {
    const result = await run(['health', '--base-url', `${local.origin}/v1`]);
    expect(result.code, result.stderr).toBe(0);
    expect(connected().length).toBeGreaterThan(0);
    expect(connected().every((c) => c.startsWith('127.0.0.1:'))).toBe(true);
  });

  it('--allow-insecure-http lets the request go (the guard then fails it, and saw where it went)', async () => {
    const result = await run(['health', '--base-url', REMOTE, '--allow-insecure-http', '--retries', '0']);
    expect(result.code).toBe(1);
    expect(result.stderr).not.toContain('[insecure_base_url]');
    expect(connected()).toContain('192.0.2.2:8787');
  });

  it('config set-url warns; the stored opt-in goes with its URL and no other', async () => {
    const set = await run(['config', 'set-url', REMOTE, '--profile', 'lan']);
    expect(set.code, set.stderr).toBe(0);
    expect(set.stderr).toMatch(/^camroll: warning: 192\.0\.2\.2:8787 is not this machine: .*clear text.*https:\/\//m);
    expect(set.stderr).toContain('--allow-insecure-http');
    expect((await run(['config', 'set-key', '--profile', 'lan'], {}, `${KEY}\n`)).code).toBe(0);
    expect((await run(['health', '--profile', 'lan'])).stderr).toContain('[insecure_base_url]');
    expect(connected()).toEqual([]);

    const optIn = await run(['config', 'set-url', REMOTE, '--profile', 'lan', '--allow-insecure-http']);
    expect(optIn.code, optIn.stderr).toBe(0);
    expect(optIn.stderr).toContain('camroll: warning: 192.0.2.2:8787 is not this machine');
    const shown = JSON.parse((await run(['config', 'show', '--profile', 'lan', '--json'])).stdout);
    expect(shown).toMatchObject({ base_url: REMOTE, allow_insecure_http: true });
    const allowed = await run(['health', '--profile', 'lan', '--retries', '0']);
    expect(allowed.stderr).not.toContain('[insecure_base_url]');
    expect(connected()).toContain('192.0.2.2:8787');

    // Another remote http:// URL given by flag is not covered by the profile's opt-in.
    const other = await run(['health', '--profile', 'lan', '--base-url', 'http://192.0.2.3/v1']);
    expect(other.stderr).toContain('[insecure_base_url]');
    expect(connected()).toEqual([]);

    // Setting the URL again without the flag drops the opt-in.
    expect((await run(['config', 'set-url', REMOTE, '--profile', 'lan'])).code).toBe(0);
    expect((await run(['health', '--profile', 'lan'])).stderr).toContain('[insecure_base_url]');
    expect(connected()).toEqual([]);
  });
});
