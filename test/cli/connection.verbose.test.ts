import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { json, startTestServer } from '../client/test-server.js';
import { runCli, useTempHome } from './helpers/run-cli.js';
import { FRESH_STATS } from '../helpers/stats.js';

const KEY = 'sk_test_verbose_secret_7777';
const USER = '3f1c2a8e-4b5d-4c6e-8f90-123456789abc';
const STATS = { ...FRESH_STATS, echoed: KEY };

let home: ReturnType<typeof useTempHome>;
beforeEach(() => {
  home = useTempHome();
});
afterEach(() => home.cleanup());

describe('-v/--verbose and --debug: the traffic, never the key', () => {
  let server: Awaited<ReturnType<typeof startTestServer>>;
  let failFirst = true;
  beforeAll(async () => {
    server = await startTestServer((_req, res) => {
      if (failFirst) {
        failFirst = false;
        json(res, 500, { error: { code: 'internal_error', message: 'boom' } }, { 'retry-after': '0' });
      } else json(res, 200, STATS);
    });
  });
  afterAll(() => server.close());
  const stats = (flag: string) =>
    runCli(['stats', '--user', USER, '--json', '--base-url', `${server.origin}/v1`, '--retries', '1', flag], {
      env: { CAMROLL_API_KEY: KEY },
    });

  it('--verbose: one line per request (method, URL, status, code, duration, attempt) and per retry', async () => {
    failFirst = true;
    const result = await stats('-v');
    expect(result.code).toBe(0);
    const lines = result.stderr.trimEnd().split('\n');
    const url = `${server.origin}/v1/users/${USER}/stats`;
    expect(lines[0]).toMatch(new RegExp(`^camroll: GET ${url} -> 500 internal_error \\(\\d+ ms, attempt 1\\)$`));
    expect(lines[1]).toMatch(
      /^camroll: GET .+ answered HTTP 500: boom \[internal_error\]; retrying after \d\.\d s \(attempt 2\)$/,
    );
    expect(lines[2]).toMatch(new RegExp(`^camroll: GET ${url} -> 200 \\(\\d+ ms, attempt 2\\)$`));
    expect(lines).toHaveLength(3);
    expect(result.stderr).not.toContain(KEY);
  });

  it('--debug adds the bodies, with the key scrubbed even where a body echoes it', async () => {
    failFirst = false;
    const result = await stats('--debug');
    expect(result.code).toBe(0);
    expect(result.stderr).toContain('  response body: {"total_events":0');
    expect(result.stderr).toContain('"echoed":"[redacted]"');
    expect(result.stderr).not.toContain(KEY);
  });
});
