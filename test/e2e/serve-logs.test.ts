import { rmSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { describeServed } from '../../src/cli/commands/serve.js';
import { tempHome } from './helpers/camroll.js';
import { startServe } from './helpers/serve.js';

const KEY = 'sk_test_serve_logs_4242';

describe('camroll serve --log-requests', () => {
  const home = tempHome();
  afterAll(() => rmSync(home.dir, { recursive: true, force: true }));

  it('logs one line per request with method, path, status, code and duration, never the key', async () => {
    const serve = await startServe({
      env: { ...home.env, CAMROLL_API_KEY: KEY },
      db: ':memory:',
      args: ['--log-requests'],
    });
    let stderr = '';
    try {
      await fetch(`${serve.baseUrl}/ping`);
      await fetch(`${serve.baseUrl}/health`, { headers: { 'x-partner-api-key': 'sk_wrong_key_0000' } });
      await fetch(`${serve.baseUrl}/health`, { headers: { 'x-partner-api-key': KEY } });
    } finally {
      stderr = (await serve.stop()).stderr;
    }
    const lines = stderr.split('\n').filter((line) => line.startsWith('GET '));
    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatch(/^GET \/v1\/ping 200 \d+(\.\d)? ms$/);
    expect(lines[1]).toMatch(/^GET \/v1\/health 401 invalid_api_key \d+(\.\d)? ms$/);
    expect(lines[2]).toMatch(/^GET \/v1\/health 200 \d+(\.\d)? ms$/);
    expect(stderr).not.toContain(KEY);
    expect(stderr).not.toContain('sk_wrong_key_0000');
  });
});

describe('request log lines', () => {
  const served = {
    method: 'POST',
    path: '/v1/users/x/media',
    status: 413,
    code: 'invalid_batch_size',
    durationMs: 3.12345,
  };
  it('pretty', () => {
    expect(describeServed(served, 'pretty')).toBe('POST /v1/users/x/media 413 invalid_batch_size 3.1 ms\n');
    expect(describeServed({ ...served, status: 200, code: null }, 'pretty')).toBe(
      'POST /v1/users/x/media 200 3.1 ms\n',
    );
  });
  it('json', () => {
    expect(JSON.parse(describeServed(served, 'json', () => new Date('2026-11-24T10:00:00Z')))).toEqual({
      time: '2026-11-24T10:00:00.000Z',
      method: 'POST',
      path: '/v1/users/x/media',
      status: 413,
      code: 'invalid_batch_size',
      duration_ms: 3.1,
    });
  });
});
