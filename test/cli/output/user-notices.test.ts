import { createServer } from 'node:net';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startTestServer } from '../../client/test-server.js';
import { runCli, useTempHome } from '../helpers/run-cli.js';
import { createdUserNotice } from '../../../src/cli/output/user-notices.js';

const KEY = 'sk_test_messages_never_shown_4321';
const USER = '3f1c2a8e-4b5d-4c6e-8f90-123456789abc';
let home: ReturnType<typeof useTempHome>;
beforeEach(() => {
  home = useTempHome();
});
afterEach(() => home.cleanup());

describe('usage errors speak one style, in flag words', () => {
  it.each([
    [['scan'], ["camroll: missing required argument 'dir' [usage_error]", '  see `camroll scan --help`']],
    [
      ['sync', '.', '--fulll'],
      ["camroll: unknown option '--fulll' [usage_error]", '  (Did you mean --full?)', '  see `camroll sync --help`'],
    ],
    [
      ['sync', '.', '--user', USER, '--concurrency', '1.5'],
      [
        'camroll: --concurrency must be a whole number from 1 to 32, not "1.5" [usage_error]',
        '  see `camroll sync --help`',
      ],
    ],
    [
      ['sync', '.', '--user', USER, '--batch-size', '500'],
      [
        'camroll: --batch-size must be a whole number from 1 to 200, not "500" [usage_error]',
        '  see `camroll sync --help`',
      ],
    ],
    [
      ['serve', '--port', 'http'],
      [
        'camroll: --port must be a whole number from 0 to 65535, not "http" [usage_error]',
        '  see `camroll serve --help`',
      ],
    ],
    [
      ['stats', '--user', USER, '--retries', '-1'],
      [
        'camroll: --retries must be a whole number from 0 to 20, not "-1" [usage_error]',
        '  see `camroll stats --help`',
      ],
    ],
    [
      ['events', '--user', 'nope'],
      ['camroll: --user must be a UUID: nope [usage_error]', '  see `camroll events --help`'],
    ],
    [['frobnicate'], ["camroll: unknown command 'frobnicate' [usage_error]", '  see `camroll --help`']],
  ])('camroll %j', async (args, lines) => {
    const result = await runCli(args);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe(`${lines.join('\n')}\n`);
  });

  it('prints help without an error line', async () => {
    const result = await runCli(['sync', '--help']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('Usage: camroll sync');
    expect(result.stderr).toBe('');
  });
});

describe('client errors name the URL, the status, the code and a next step', () => {
  let server: Awaited<ReturnType<typeof startTestServer>>;
  let answer: (url: string) => { status: number; body: string; type: string };
  beforeAll(async () => {
    server = await startTestServer((req, res) => {
      const { status, body, type } = answer(req.url);
      res.writeHead(status, { 'content-type': type });
      res.end(body);
    });
  });
  afterAll(() => server.close());
  const envelope = (status: number, code: string, message: string) => ({
    status,
    body: JSON.stringify({ error: { code, message } }),
    type: 'application/json',
  });
  const stats = (baseUrl: string) =>
    runCli(['stats', '--user', USER, '--base-url', baseUrl, '--retries', '0'], { env: { CAMROLL_API_KEY: KEY } });

  it('401: the full URL, HTTP 401, the code, and how to check the key and its environment', async () => {
    answer = () => envelope(401, 'invalid_api_key', 'missing or invalid API key');
    const result = await stats(`${server.origin}/v1`);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      `camroll: GET ${server.origin}/v1/users/${USER}/stats answered HTTP 401: missing or invalid API key ` +
        `[invalid_api_key]\n`,
    );
    expect(result.stderr).toContain('check the key and the environment it belongs to (sandbox or production)');
    expect(result.stderr).toContain('`camroll config show`');
    expect(result.stdout + result.stderr).not.toContain(KEY);
  });

  it('404 on a base URL without a version prefix: did you mean …/v1?', async () => {
    answer = () => ({ status: 404, body: '<html><body>Not Found</body></html>', type: 'text/html' });
    const result = await stats(server.origin);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      `GET ${server.origin}/users/${USER}/stats answered HTTP 404 without an error envelope`,
    );
    expect(result.stderr).toContain('[http_404]');
    expect(result.stderr).toContain(`did you mean ${server.origin}/v1?`);
  });

  it('an HTML page where JSON was due: names the content type and the first bytes', async () => {
    answer = () => ({
      status: 200,
      body: '<!DOCTYPE html><html><title>Sign in</title></html>',
      type: 'text/html; charset=utf-8',
    });
    const result = await stats(`${server.origin}/v1`);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      'with a body that is not JSON (text/html: "<!DOCTYPE html><html><title>Sign in</tit"…)',
    );
    expect(result.stderr).toContain('[contract_violation]');
    expect(result.stderr).toContain('a login page or a proxy?');
  });

  it('user_not_found: says users belong to the key that created them', async () => {
    answer = () => envelope(404, 'user_not_found', 'no such user');
    const result = await stats(`${server.origin}/v1`);
    expect(result.stderr).toContain('[user_not_found]');
    expect(result.stderr).toContain('users belong to the partner and environment');
    expect(result.stderr).not.toContain('did you mean');
  });

  it('a 5xx after the retries: the service failed, try later', async () => {
    answer = () => envelope(500, 'internal_error', 'boom');
    const result = await stats(`${server.origin}/v1`);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('answered HTTP 500: boom [internal_error]');
    expect(result.stderr).toContain('run the command again later');
  });

  it('a refused connection names the host and asks whether the service runs', async () => {
    // A port that was free a moment ago: nothing listens there.
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const port = (probe.address() as { port: number }).port;
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    const result = await stats(`http://127.0.0.1:${port}/v1`);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`GET http://127.0.0.1:${port}/v1/users/${USER}/stats failed`);
    expect(result.stderr).toContain('[ECONNREFUSED]');
    expect(result.stderr).toContain(`nothing accepts connections at http://127.0.0.1:${port}: is the service running`);
  });
});

describe('messages never name the key', () => {
  it('a key-less named profile, with the key in the environment', async () => {
    await runCli(['config', 'set-url', 'http://127.0.0.1:9/v1', '--profile', 'prod']);
    const result = await runCli(['health', '--profile', 'prod'], { env: { CAMROLL_API_KEY: KEY } });
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      'camroll: profile "prod" holds no API key (a named profile\'s URL is only used with its own key); no API key ' +
        'for http://127.0.0.1:9/v1; store one with `camroll config set-key --profile prod` (reads it from stdin) ' +
        '[missing_api_key]\n',
    );
  });
});

describe('the embedded service is never shown as a place to connect to', () => {
  it('health and ping show no throwaway port, name the service and its data on stderr, and give no sandbox warning', async () => {
    const health = await runCli(['health']);
    expect(health.code).toBe(0);
    expect(health.stdout).toMatch(/^partner {6}local\nenvironment {2}sandbox\nrate limit {3}not throttled\n$/);
    expect(health.stderr).toMatch(/using the embedded local service \(data: .+service\.db\)/);
    expect(health.stdout + health.stderr).not.toMatch(/127\.0\.0\.1:\d+/);
    expect(health.stderr).not.toContain('real profiles');
    const ping = await runCli(['ping']);
    expect(ping.code).toBe(0);
    expect(ping.stdout).toBe('ok: the in-process local service answered\n');
  });
});

describe('the notice when sync --email creates a profile', () => {
  const ID = '0f8fad5b-d9cb-469f-a165-70867728950e';
  it.each([
    ['embedded', 'http://127.0.0.1:41234/v1', undefined, `created user ${ID} for a@example.com`],
    // A `camroll serve` on this machine keeps its profiles in a local database, sandbox key or not.
    ['remote', 'http://127.0.0.1:8787/v1', 'sandbox', `created user ${ID} for a@example.com`],
    ['remote', 'http://localhost:8787/v1', 'production', `created user ${ID} for a@example.com`],
    [
      'remote',
      'https://sandbox.example.com/v1',
      'sandbox',
      `created user ${ID} for a@example.com (a real profile: the sandbox runs on the production dataset)`,
    ],
    [
      'remote',
      'https://api.example.com/v1',
      'production',
      `created user ${ID} for a@example.com (a real production profile)`,
    ],
  ] as const)('%s service at %s, %s key', (kind, baseUrl, environment, expected) => {
    expect(createdUserNotice(ID, 'a@example.com', { kind, baseUrl }, environment)).toBe(expected);
  });
});
