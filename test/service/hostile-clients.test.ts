import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { PROFILE_MAX_LENGTH } from '../../src/contract/users.js';
import { buildOpenApiDocument } from '../../src/service/openapi.js';
import { startService, type RunningService, type StartServiceOptions } from '../../src/service/server.js';

/**
 * Hostile clients against the real service (startService, listening on 127.0.0.1): each
 * costs only itself. The service's timeouts and caps are set small through its options;
 * the production defaults are what docs/readme/service.md states.
 */

const SANDBOX_KEY = 'sk_test_hostile_clients_sandbox';
const LIMITED_KEY = 'sk_test_hostile_clients_limited';
const KEYS = [
  { key: SANDBOX_KEY, partner_id: 'acme', environment: 'sandbox' },
  { key: LIMITED_KEY, partner_id: 'acme', environment: 'sandbox', rate_limit: { limit: 2, window_seconds: 3600 } },
];

let dir = '';
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'camroll-hostile-'));
  writeFileSync(join(dir, 'keys.json'), JSON.stringify(KEYS));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const running: RunningService[] = [];
afterEach(async () => {
  for (const svc of running.splice(0)) await svc.close();
});

async function serve(options: Partial<StartServiceOptions> = {}): Promise<RunningService> {
  const svc = await startService({
    host: '127.0.0.1',
    port: 0,
    dbPath: ':memory:',
    keysPath: join(dir, 'keys.json'),
    env: {},
    dataDir: dir,
    ...options,
  });
  running.push(svc);
  return svc;
}

interface Answer {
  status: number;
  body: any;
  headers: Record<string, string | string[] | undefined>;
}

async function call(
  svc: RunningService,
  method: 'GET' | 'POST',
  path: string,
  options: { key?: string; body?: unknown; raw?: string | Buffer; localAddress?: string } = {},
): Promise<Answer> {
  const headers: Record<string, string> = {};
  if (options.key) headers['x-partner-api-key'] = options.key;
  const payload = options.raw ?? (options.body === undefined ? undefined : JSON.stringify(options.body));
  if (payload !== undefined) headers['content-type'] = 'application/json';
  const res = await request(`${svc.baseUrl}${path}`, { method, headers, body: payload });
  const text = await res.body.text();
  return { status: res.statusCode, body: text === '' ? null : JSON.parse(text), headers: res.headers };
}

describe('profile members have a maximum length (POST /users)', () => {
  const MEMBERS = Object.entries(PROFILE_MAX_LENGTH).filter(([name]) => name !== 'phone_number');
  const inAddress = new Set(['city', 'region', 'postal_code', 'country']);
  const bodyWith = (email: string, name: string, value: string) =>
    inAddress.has(name) ? { email, address: { [name]: value } } : { email, [name]: value };

  it.each(MEMBERS)(
    '%s: up to %i characters is stored, one more is 400 invalid_request naming it',
    async (name, max) => {
      const svc = await serve();
      const ok = await call(svc, 'POST', '/users', {
        key: SANDBOX_KEY,
        body: bodyWith(`${name}@example.com`, name, 'é'.repeat(max)),
      });
      expect(ok.status).toBe(201);
      const over = await call(svc, 'POST', '/users', {
        key: SANDBOX_KEY,
        body: bodyWith(`${name}.over@example.com`, name, 'x'.repeat(max + 1)),
      });
      expect(over.status).toBe(400);
      const field = inAddress.has(name) ? `address.${name}` : name;
      expect(over.body.error).toMatchObject({ code: 'invalid_request', details: { field, max_length: max } });
      expect(over.body.error.message).toContain(field);
      // Nothing was created: the same e-mail within the cap is a new profile.
      const retry = await call(svc, 'POST', '/users', {
        key: SANDBOX_KEY,
        body: { email: `${name}.over@example.com` },
      });
      expect(retry.body.existing).toBe(false);
    },
  );

  it('a 3 MB phone number never fails the call (the contract); app.test.ts checks it is not stored', async () => {
    const svc = await serve();
    const huge = `+1 ${'5'.repeat(3 * 1024 * 1024)}`;
    const first = await call(svc, 'POST', '/users', {
      key: SANDBOX_KEY,
      body: { email: 'p1@example.com', phone_number: huge },
    });
    expect(first.status).toBe(201);
  });

  it('the OpenAPI document states every cap', () => {
    const schemas = (buildOpenApiDocument() as any).components.schemas;
    for (const [name, max] of Object.entries(PROFILE_MAX_LENGTH)) {
      const owner = inAddress.has(name) ? schemas.Address : schemas.UserCreateRequest;
      expect(owner.properties[name].maxLength, name).toBe(max);
    }
  });
});
