import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json, startTestServer } from '../client/test-server.js';
import { FRESH_STATS } from '../helpers/stats.js';
import { runCamroll, tempHome } from './helpers/camroll.js';
import { makeJpeg } from './helpers/exif-jpeg.js';

const KEY = 'sk_live_echoed_back_by_the_host_4242';
const USER = '3f1c2a8e-4b5d-4c6e-8f90-123456789abc';

/**
 * A host that echoes the key it was sent in every way it can: a proxy's 503 page, an envelope's
 * `code`, `message` and `details`, a header, a 2xx body. The real binary must print it nowhere:
 * not on stdout or stderr, not in a --verbose/--debug trace, a --log-file or a --report.
 */
describe('a host that echoes the key back', () => {
  const home = tempHome();
  let server: Awaited<ReturnType<typeof startTestServer>>;
  let healthUp = false;
  beforeAll(async () => {
    server = await startTestServer((req, res) => {
      const key = String(req.headers['x-partner-api-key'] ?? 'none');
      if (req.url.endsWith('/health') && !healthUp) {
        res.writeHead(503, { 'content-type': 'text/plain', 'x-echo': key });
        res.end(`${key}: refused by the upstream`);
      } else if (req.url.endsWith('/health')) {
        const limits = { enabled: false, limit: null, window_seconds: null };
        json(res, 200, { status: 'ok', partner_id: 'echo', environment: 'sandbox', rate_limit: limits });
      } else if (req.url.endsWith('/stats') && healthUp) {
        json(res, 200, FRESH_STATS);
      } else if (req.url.endsWith('/stats')) {
        json(res, 400, { error: { code: `bad_key_${key}`, message: `key ${key} refused`, details: { key } } });
      } else if (req.url.endsWith('/ping')) {
        json(res, 200, { status: 'ok', seen: key });
      } else if (req.url.includes('/media')) {
        json(res, 422, { error: { code: `rejected:${key}`, message: `no (${key})`, details: { echo: [key] } } });
      } else json(res, 404, { error: { code: 'not_found', message: `nothing here for ${key}` } });
    });
  });
  afterAll(async () => {
    await server.close();
    rmSync(home.dir, { recursive: true, force: true });
  });
  const env = () => ({ ...home.env, CAMROLL_API_KEY: KEY });
  const base = () => `${server.origin}/v1`;

  it('a 503 text/plain page quoting the key: the message shows the page, scrubbed', async () => {
    const result = await runCamroll(['health', '--base-url', base(), '--retries', '0', '--debug'], { env: env() });
    expect(result.code).toBe(1);
    // The key reached the host (so there was something to echo), and came back nowhere.
    expect(server.seen.some((r) => r.headers['x-partner-api-key'] === KEY)).toBe(true);
    expect(result.stderr).toContain('text/plain: "[redacted]: refused by the upstream"');
    expect(result.stderr + result.stdout).not.toContain(KEY);
  });

  it('an envelope whose code, message and details hold the key: the code is scrubbed like the rest', async () => {
    const result = await runCamroll(['stats', '--user', USER, '--base-url', base(), '--retries', '0', '--json', '-v'], {
      env: env(),
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('[bad_key_[redacted]]');
    expect(result.stderr + result.stdout).not.toContain(KEY);
  });

  it('a 2xx body holding the key: --debug traces it scrubbed, and the key in no output', async () => {
    const result = await runCamroll(['ping', '--base-url', base(), '--debug'], { env: env() });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain('"seen":"[redacted]"');
    expect(result.stderr + result.stdout).not.toContain(KEY);
  });

  it('doctor quotes what the host said, scrubbed', async () => {
    const result = await runCamroll(['doctor', '--base-url', base(), '--json'], { env: env() });
    const health = (JSON.parse(result.stdout) as { checks: { name: string; detail: string }[] }).checks.find(
      (check) => check.name === 'key.health',
    );
    expect(health?.detail).toContain('"[redacted]: refused by the upstream"');
    expect(result.stderr + result.stdout).not.toContain(KEY);
  });

  it('sync: the key is in neither the output, the --log-file nor the --report', async () => {
    const library = join(home.dir, 'library');
    mkdirSync(library, { recursive: true });
    writeFileSync(
      join(library, 'a.jpg'),
      makeJpeg({ takenAt: new Date('2024-07-13T01:00:00Z'), latitude: 40.75, longitude: -73.99, tag: 'echo' }),
    );
    healthUp = true;
    const log = join(home.dir, 'sync.log');
    const report = join(home.dir, 'report.jsonl');
    const result = await runCamroll(
      [
        'sync',
        library,
        '--user',
        USER,
        '--base-url',
        base(),
        '--retries',
        '0',
        '--debug',
        '--log-file',
        log,
        '--report',
        report,
        '--no-progress',
      ],
      { env: env() },
    );
    expect(result.code).toBe(1);
    const logged = readFileSync(log, 'utf8');
    const reported = readFileSync(report, 'utf8');
    expect(logged + reported + result.stderr).toContain('rejected:[redacted]');
    for (const text of [result.stdout, result.stderr, logged, reported]) expect(text).not.toContain(KEY);
  });
});
