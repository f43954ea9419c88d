import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCamroll, tempHome } from './helpers/camroll.js';
import { startServe, type ServeHandle } from './helpers/serve.js';

const USER = '3f1c2a8e-4b5d-4c6e-8f90-123456789abc';
const WRONG_KEY = 'sk_wrong_key_never_printed_0001';

/** What a user sees when something goes right or wrong, from the real binary against a real `camroll serve`. */
describe('errors as a user sees them', () => {
  const home = tempHome();
  let serve: ServeHandle;
  beforeAll(async () => {
    serve = await startServe({ env: home.env, db: join(home.dir, 'service.db') });
  });
  afterAll(async () => {
    await serve.stop();
    rmSync(home.dir, { recursive: true, force: true });
  });

  it('a wrong key: the URL, the status, the code, and what to check next', async () => {
    const result = await runCamroll(['stats', '--user', USER, '--base-url', serve.baseUrl], {
      env: { ...home.env, CAMROLL_API_KEY: WRONG_KEY },
    });
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    const lines = result.stderr.trimEnd().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(
      new RegExp(`^camroll: GET ${serve.baseUrl}/users/${USER}/stats answered HTTP 401: .+ \\[invalid_api_key\\]$`),
    );
    expect(lines[1]).toMatch(
      /^ {2}check the key and the environment it belongs to \(sandbox or production\): `camroll config show`/,
    );
    expect(result.stderr).not.toContain(WRONG_KEY);
  });

  it('a base URL without its version prefix: did you mean …/v1?', async () => {
    const origin = serve.baseUrl.replace(/\/v1$/, '');
    const result = await runCamroll(['stats', '--user', USER, '--base-url', origin], {
      env: { ...home.env, CAMROLL_API_KEY: WRONG_KEY },
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(
      new RegExp(`^camroll: GET ${origin}/users/${USER}/stats answered HTTP 404: .+ \\[not_found\\]\\n`),
    );
    expect(result.stderr).toContain(`  the base URL has no version prefix: did you mean ${serve.baseUrl}?\n`);
  });

  it('doctor --round-trip against camroll serve: nothing fails, the key appears nowhere', async () => {
    const key = 'sk_doctor_e2e_key_0042';
    const own = await startServe({ env: { ...home.env, CAMROLL_API_KEY: key }, db: ':memory:' });
    try {
      const result = await runCamroll(['doctor', '--round-trip', '--base-url', own.baseUrl], {
        env: { ...home.env, CAMROLL_API_KEY: key },
      });
      expect(result.code, result.stdout + result.stderr).toBe(0);
      expect(result.stdout).toMatch(
        /^roundtrip\.ingest +pass +4 sent: 3 rejected \(each reason once\), 1 accepted and unmatched; nothing retained$/m,
      );
      // serve's local key is a sandbox key, but on this machine: its users live in a local database, not real profiles.
      expect(result.stdout).toMatch(
        /^key\.environment +pass +sandbox \(a service on this machine: a local database\)$/m,
      );
      expect(result.stdout).toMatch(/^doctor ok: 13 pass, 0 warn, 0 fail, 0 skip$/m);
      expect(result.stdout + result.stderr).not.toContain(key);
    } finally {
      await own.stop();
    }
  });
});
