import { createHash } from 'node:crypto';
import { copyFileSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import { createServer, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collect, ROOT, runCamroll, spawnCamroll, type RunResult } from './helpers/camroll.js';
import { useTempHomes } from './helpers/temp-homes.js';
import { startServe, type ServeHandle } from './helpers/serve.js';

/*
 * Black-box conformance of the command-line surface with docs/contract/product-decisions.md §1: the real
 * binary, driven the way a partner's script would drive it. Behaviour the other end-to-end
 * files already pin (scan summaries and cache, sync resume and faults, serve start-up) is not
 * repeated here.
 */

const KEY = 'sk_test_acceptance_cli_Q7rT2vX9';
const FIXTURES = join(ROOT, 'fixtures', 'library');

const outputs: RunResult[] = [];
const files: string[] = [];
const makeHome = useTempHomes('camroll-acceptance-');
/** The service's home, the first made: reports and libraries the tests write go there. */
let serveDir: string;
let serve: ServeHandle;
let proxyA: PrefixProxy;
let proxyB: PrefixProxy;
/** A home whose client commands go to the service through proxy A (prefix /partner/api). */
let env: NodeJS.ProcessEnv;

/** Runs the binary and keeps its output for the key check at the end. */
async function camroll(args: string[], runEnv: NodeJS.ProcessEnv = env, stdin?: string): Promise<RunResult> {
  const result = await runCamroll(args, { env: runEnv, stdin, timeoutMs: 90_000 });
  outputs.push(result);
  return result;
}

function expectExit(result: RunResult, code: number): void {
  expect(result.code, `stdout: ${result.stdout}\nstderr: ${result.stderr}`).toBe(code);
}

/** No stack trace or raw exception anywhere a partner would look. */
function expectNoCrash(result: RunResult): void {
  const text = result.stdout + result.stderr;
  expect(text).not.toMatch(/^\s+at .+[:(]/m);
  expect(text).not.toMatch(/\b(TypeError|ReferenceError|Unhandled|node:internal)\b/);
}

function home(): NodeJS.ProcessEnv {
  return makeHome().env;
}

interface Seen {
  method: string;
  /** Path and query as the proxy received them (before rewriting). */
  url: string;
  body: string;
}

interface PrefixProxy {
  /** `http://127.0.0.1:PORT<prefix>`: a base URL whose prefix is not /v1. */
  baseUrl: string;
  seen: Seen[];
  close(): Promise<void>;
}

/** Forwards `<prefix>/x` to `<target>/x` and records every request; anything else gets 404. */
async function startPrefixProxy(target: string, prefix: string): Promise<PrefixProxy> {
  const upstream = new URL(target);
  const seen: Seen[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      seen.push({ method: req.method ?? '', url: req.url ?? '', body: body.toString('utf8') });
      if (!req.url?.startsWith(`${prefix}/`)) {
        res.writeHead(404, { 'content-type': 'application/json' });
        res.end('{"error":{"code":"not_found","message":"outside the proxy prefix"}}');
        return;
      }
      const up = httpRequest(
        {
          host: upstream.hostname,
          port: upstream.port,
          method: req.method,
          path: upstream.pathname + req.url.slice(prefix.length),
          headers: req.headers,
        },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        },
      );
      up.on('error', () => res.destroy());
      up.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}${prefix}`,
    seen,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** The service's own answer, straight from `camroll serve`. */
async function raw(method: 'GET' | 'POST', path: string, body?: unknown): Promise<string> {
  const res = await fetch(`${serve.baseUrl}${path}`, {
    method,
    headers: { 'x-partner-api-key': KEY, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return res.text();
}

/** Same members, same values, same order: the JSON text with whitespace normalised. */
const canonical = (text: string): string => JSON.stringify(JSON.parse(text));

let demoUser: string;

beforeAll(async () => {
  const serveHome = makeHome();
  serveDir = serveHome.dir;
  serve = await startServe({ env: { ...serveHome.env, CAMROLL_API_KEY: KEY }, db: ':memory:' });
  proxyA = await startPrefixProxy(serve.baseUrl, '/partner/api');
  proxyB = await startPrefixProxy(serve.baseUrl, '/other/prefix/v2');
  env = { ...home(), CAMROLL_BASE_URL: proxyA.baseUrl, CAMROLL_API_KEY: KEY };
  const sync = await camroll(['sync', FIXTURES, '--email', 'demo@example.com', '--json']);
  expectExit(sync, 0);
  demoUser = (JSON.parse(sync.stdout) as { user_id: string }).user_id;
}, 120_000);

afterAll(async () => {
  const stopped = await serve?.stop();
  if (stopped) outputs.push(stopped);
  await proxyA?.close();
  await proxyB?.close();
});

// Help, usage errors and exit codes of every command run in-process (test/cli/surface.test.ts);
// here once each through the real binary, as a script sees them.
describe('the real binary: help and a usage error', () => {
  it('--help exits 0 with help on stdout; an unknown flag exits 2 with one line on stderr', async () => {
    const help = await camroll(['sync', '--help'], home());
    expectExit(help, 0);
    expect(help.stdout).toMatch(/^Usage: camroll sync\b/);
    expect(help.stderr).toBe('');
    const usage = await camroll([
      'sync',
      FIXTURES,
      '--email',
      'a@example.com',
      '--api-key',
      'sk_from_the_command_line',
    ]);
    expectExit(usage, 2);
    expect(usage.stdout).toBe('');
    expect(usage.stderr).toMatch(/^camroll: unknown option '--api-key' \[usage_error\]$/m);
    expectNoCrash(usage);
  });
});

describe('--json output is the service’s own response object', () => {
  it('users create --json (with every flag) sends each flag and prints the service’s answer', async () => {
    const since = proxyA.seen.length;
    const args = [
      'users',
      'create',
      '--email',
      'every.flag@example.com',
      '--partner-user-id',
      'p-77',
      '--first-name',
      'Ada',
      '--last-name',
      'Lovelace',
      '--phone',
      '+33 1 23 45 67 89',
      '--city',
      'Lyon',
      '--region',
      'ARA',
      '--postal-code',
      '69001',
      '--country',
      'FR',
      '--json',
    ];
    const result = await camroll(args);
    expectExit(result, 0);
    const post = proxyA.seen.slice(since).find((s) => s.method === 'POST' && s.url === '/partner/api/users');
    expect(JSON.parse(post!.body)).toEqual({
      email: 'every.flag@example.com',
      partner_user_id: 'p-77',
      first_name: 'Ada',
      last_name: 'Lovelace',
      phone_number: '+33 1 23 45 67 89',
      address: { city: 'Lyon', region: 'ARA', postal_code: '69001', country: 'FR' },
    });
    const created = JSON.parse(result.stdout) as { existing: boolean };
    expect(created.existing).toBe(false);
    // The same call again: the service's answer (existing: true), member for member.
    const again = await camroll(args);
    const direct = await raw('POST', '/users', { email: 'every.flag@example.com' });
    expect(canonical(again.stdout)).toBe(canonical(direct));
  });

  it('events --json: a page, a later page by --cursor, and --no-media', async () => {
    const first = await camroll(['events', '--user', demoUser, '--limit', '2', '--json']);
    expectExit(first, 0);
    expect(canonical(first.stdout)).toBe(canonical(await raw('GET', `/users/${demoUser}/events?limit=2`)));
    const cursor = (JSON.parse(first.stdout) as { next_cursor: string }).next_cursor;
    expect(typeof cursor).toBe('string');

    const second = await camroll(['events', '--user', demoUser, '--limit', '2', '--cursor', cursor, '--json']);
    expectExit(second, 0);
    const query = new URLSearchParams({ limit: '2', cursor });
    expect(canonical(second.stdout)).toBe(canonical(await raw('GET', `/users/${demoUser}/events?${query}`)));

    const light = await camroll(['events', '--user', demoUser, '--no-media', '--json']);
    expect(canonical(light.stdout)).toBe(canonical(await raw('GET', `/users/${demoUser}/events?include_media=false`)));
    expect((JSON.parse(light.stdout) as { events: object[] }).events.every((e) => !('media' in e))).toBe(true);
  });

  it('events --all --json is {"events": [...every page...], "total": N}', async () => {
    const result = await camroll(['events', '--user', demoUser, '--all', '--limit', '2', '--json']);
    expectExit(result, 0);
    const pages: Array<{ events: unknown[]; next_cursor: string | null; has_more: boolean }> = [];
    let cursor: string | null = null;
    for (let i = 0; i < 20; i += 1) {
      const q = new URLSearchParams({ limit: '2', ...(cursor ? { cursor } : {}) });
      const page = JSON.parse(await raw('GET', `/users/${demoUser}/events?${q}`)) as (typeof pages)[number];
      pages.push(page);
      if (!page.has_more) break;
      cursor = page.next_cursor;
    }
    const events = pages.flatMap((p) => p.events);
    expect(pages.length).toBeGreaterThan(1);
    expect(Object.keys(JSON.parse(result.stdout) as object)).toEqual(['events', 'total']);
    expect(canonical(result.stdout)).toBe(JSON.stringify({ events, total: events.length }));
  });

  it('stats --json and health --json', async () => {
    const stats = await camroll(['stats', '--user', demoUser, '--json']);
    expectExit(stats, 0);
    expect(canonical(stats.stdout)).toBe(canonical(await raw('GET', `/users/${demoUser}/stats`)));
    const health = await camroll(['health', '--json']);
    expectExit(health, 0);
    expect(canonical(health.stdout)).toBe(canonical(await raw('GET', '/health')));
    // serve's sandbox key on this machine makes no real profiles: no warning (a remote one's goes to stderr, never the
    // JSON).
    expect(health.stderr).toBe('');
  });
});

describe('sync', () => {
  it(
    'scans, sends batches of --batch-size, calls sync-complete, then reads events and stats; --json is one ' +
      'document, indented like every --json',
    async () => {
      const since = proxyA.seen.length;
      const report = join(serveDir, 'sync-report.jsonl');
      files.push(report);
      const result = await camroll([
        'sync',
        FIXTURES,
        '--email',
        'batches@example.com',
        '--batch-size',
        '10',
        '--concurrency',
        '2',
        '--report',
        report,
        '--json',
      ]);
      expectExit(result, 0);
      expect(result.stdout.endsWith('}\n')).toBe(true);
      const summary = JSON.parse(result.stdout) as {
        sent: number;
        batches: number;
        events: unknown[];
        stats: { has_synced: boolean };
      };
      expect(result.stdout).toBe(`${JSON.stringify(summary, null, 2)}\n`);
      expect(summary.stats.has_synced).toBe(true);

      const calls = proxyA.seen.slice(since);
      const media = calls.filter((c) => c.method === 'POST' && c.url.endsWith('/media'));
      expect(media.length).toBe(Math.ceil(summary.sent / 10));
      for (const c of media) expect((JSON.parse(c.body) as { media: unknown[] }).media.length).toBeLessThanOrEqual(10);
      const complete = calls.findIndex((c) => c.method === 'POST' && c.url.endsWith('/sync-complete'));
      expect(complete).toBeGreaterThan(calls.lastIndexOf(media.at(-1)!));
      expect(calls.slice(complete).some((c) => c.method === 'GET' && c.url.includes('/events'))).toBe(true);
      expect(calls.slice(complete).some((c) => c.method === 'GET' && c.url.endsWith('/stats'))).toBe(true);
    },
  );

  it('--email finds the user it created before; the human output shows the events and stats', async () => {
    const created = await camroll(['users', 'create', '--email', 'known@example.com', '--json']);
    const userId = (JSON.parse(created.stdout) as { user_id: string }).user_id;
    const result = await camroll(['sync', FIXTURES, '--email', 'Known@Example.com', '--full']);
    expectExit(result, 0);
    expectNoCrash(result);
    expect(result.stdout).toContain(`user ${userId}`);
    expect(result.stdout).toMatch(/^Events \(6, newest first\)$/m);
    expect(result.stdout).toMatch(/^Library synced\s+yes$/m);
  });
});

describe('where requests go', () => {
  it('uses the base URL whole: a prefix that is not /v1, with or without a trailing slash', async () => {
    for (const base of [proxyB.baseUrl, `${proxyB.baseUrl}/`]) {
      const since = proxyB.seen.length;
      const { CAMROLL_BASE_URL: _, ...noUrl } = env;
      expectExit(await camroll(['ping', '--base-url', base], noUrl), 0);
      expectExit(await camroll(['health', '--json'], { ...noUrl, CAMROLL_BASE_URL: base }), 0);
      expectExit(await camroll(['stats', '--user', demoUser, '--base-url', base, '--json'], noUrl), 0);
      const urls = proxyB.seen.slice(since).map((s) => s.url);
      expect(urls).toEqual([
        '/other/prefix/v2/ping',
        '/other/prefix/v2/health',
        `/other/prefix/v2/users/${demoUser}/stats`,
      ]);
    }
  });

  it('precedence: flags > environment > stored configuration', async () => {
    const plain = home();
    // Stored: profile "a" (current) goes through proxy A, profile "b" through proxy B.
    expectExit(await camroll(['config', 'set-url', proxyA.baseUrl, '--profile', 'a'], plain), 0);
    expectExit(await camroll(['config', 'set-key', '--profile', 'a'], plain, `${KEY}\n`), 0);
    expectExit(await camroll(['config', 'set-url', proxyB.baseUrl, '--profile', 'b'], plain), 0);
    expectExit(await camroll(['config', 'set-key', '--profile', 'b'], plain, `${KEY}\n`), 0);

    const via = async (args: string[], runEnv: NodeJS.ProcessEnv): Promise<'a' | 'b' | 'none'> => {
      const [a, b] = [proxyA.seen.length, proxyB.seen.length];
      const result = await camroll(['health', '--json', ...args], runEnv);
      expectExit(result, 0);
      if (proxyA.seen.length > a) return 'a';
      return proxyB.seen.length > b ? 'b' : 'none';
    };
    expect(await via([], plain)).toBe('a'); // stored current profile
    expect(await via([], { ...plain, CAMROLL_BASE_URL: proxyB.baseUrl })).toBe('b'); // env URL > stored
    expect(await via([], { ...plain, CAMROLL_PROFILE: 'b' })).toBe('b'); // env profile > stored current
    expect(await via(['--profile', 'a'], { ...plain, CAMROLL_PROFILE: 'b' })).toBe('a'); // flag > env
    expect(await via(['--profile', 'a'], { ...plain, CAMROLL_BASE_URL: proxyB.baseUrl })).toBe('a'); // flag profile > env URL
    expect(
      await via(['--base-url', proxyA.baseUrl], { ...plain, CAMROLL_BASE_URL: proxyB.baseUrl, CAMROLL_API_KEY: KEY }),
    ).toBe('a');
    expect(await via(['--base-url', proxyB.baseUrl], { ...plain, CAMROLL_PROFILE: 'a' })).toBe('b'); // flag URL > env profile
  });

  it('with no base URL anywhere, runs against the embedded service and says so on stderr', async () => {
    const plain = home();
    const ping = await camroll(['ping'], plain);
    expectExit(ping, 0);
    expect(ping.stderr).toMatch(/embedded local service/);
    expect(ping.stdout).not.toMatch(/embedded/);
    const health = await camroll(['health', '--json'], plain);
    expectExit(health, 0);
    expect(JSON.parse(health.stdout)).toMatchObject({ status: 'ok', partner_id: expect.any(String) });
    expect(health.stderr).toMatch(/embedded local service/);
  });
});

describe('the README main job: sync fixtures/library --email demo@example.com in a fresh home', () => {
  it('prints the matched events and the stats, clearly and without noise', async () => {
    const fresh = home();
    const result = await camroll(['sync', 'fixtures/library', '--email', 'demo@example.com'], fresh);
    expectExit(result, 0);
    expectNoCrash(result);
    const out = result.stdout;
    expect(out).toMatch(/^user [0-9a-f-]{36} \(full pass, the embedded local service\)$/m);
    expect(out).toMatch(/^files:\s+55 \(51 with metadata, 0 unreadable, 4 damaged, 1 duplicate\)$/m);
    expect(out).toMatch(/^elapsed:\s+\d+\.\d s$/m);
    expect(out).toMatch(/^Events \(6, newest first\)$/m);
    for (const name of [
      'Madison Square Garden',
      'Wembley Stadium',
      'Sydney Opera House',
      'Tokyo Dome',
      'Allianz Parque',
      'Accor Arena',
    ]) {
      expect(out).toContain(name);
    }
    expect(out).toMatch(/^Events\s+6 \(4 concerts, 2 sports\)$/m);
    // The edited copy beside its original is one moment: sent once.
    expect(out).toMatch(/^collapsed:\s+1 edited copy \(file name\) \(one item per moment\)$/m);
    expect(out).not.toMatch(/^left out:/m);
    expect(out).toMatch(/^Library synced\s+yes$/m);
    // stderr: the embedded notice, the pass, the hint about damaged files, and at most
    // plain progress lines on a slow machine; nothing else.
    const notes = result.stderr.trim().split('\n');
    expect(notes.every((line) => line.startsWith('camroll: ') || line.startsWith('sync: '))).toBe(true);
    expect(result.stderr).toMatch(/using the embedded local service/);
    expect(result.stderr).toMatch(
      /4 files are damaged \(read, but no metadata could be taken from them\); --report FILE lists them/,
    );
    expect(JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).bin).toEqual({ camroll: 'bin/camroll.js' });
  });
});

describe('scan --jsonl lines', () => {
  it('hold exactly {path, media, source} or {path, error}; ids are sha256 of the bytes under any name', async () => {
    const lib = join(serveDir, 'jsonl-lib');
    mkdirSync(join(lib, 'elsewhere', 'deeper'), { recursive: true });
    const photo = join(FIXTURES, 'events', 'sao-paulo', 'IMG_5003.jpg');
    copyFileSync(photo, join(lib, 'a.jpg'));
    copyFileSync(photo, join(lib, 'elsewhere', 'deeper', 'Renamed Copy.JPG'));
    copyFileSync(join(FIXTURES, 'broken', 'truncated.jpg'), join(lib, 'cut.jpg'));

    const result = await camroll(['scan', lib, '--jsonl', '--no-cache']);
    expectExit(result, 1);
    const lines = result.stdout
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, any>);
    expect(lines).toHaveLength(3);
    const id = `sha256:${createHash('sha256').update(readFileSync(photo)).digest('hex')}`;
    for (const line of lines) {
      if (line.path === 'cut.jpg') {
        expect(Object.keys(line)).toEqual(['path', 'error']);
        expect(Object.keys(line.error)).toEqual(['code', 'message']);
        continue;
      }
      // docs/contract/product-decisions.md §1 gives {path, media}; the scan issue adds `source`, naming the rule used.
      expect(Object.keys(line)).toEqual(['path', 'media', 'source']);
      // Issue 28 adds the file's origin and the rule that gave it.
      expect(Object.keys(line.source)).toEqual(['taken_at', 'coordinates', 'origin', 'origin_rule']);
      expect(line.source.origin).toBe('own');
      expect(Object.keys(line.media)).toEqual([
        'id',
        'taken_at',
        'latitude',
        'longitude',
        'media_type',
        'filename',
        'duration_seconds',
        'device_make',
        'device_model',
        'device_lens_model',
      ]);
      expect(line.media.id).toBe(id);
      expect(line.media.taken_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/);
    }
    expect(lines.map((l) => l.path).sort()).toEqual(['a.jpg', 'cut.jpg', 'elsewhere/deeper/Renamed Copy.JPG']);
    expect(statSync(lib).isDirectory()).toBe(true);
  });
});

describe('a reader that goes away', () => {
  it('events --all --json into a closed pipe: no stack trace', async () => {
    const child = spawnCamroll(['events', '--user', demoUser, '--all', '--json'], { env });
    child.stdout!.destroy();
    const result = await collect(child);
    outputs.push(result);
    expectNoCrash(result);
    expect(result.code).toBe(0);
  });
});

describe('secrecy', () => {
  it('never printed the key, nor wrote it to a report', () => {
    expect(outputs.length).toBeGreaterThan(25);
    for (const { stdout, stderr } of outputs) expect(stdout + stderr).not.toContain(KEY);
    for (const file of files) expect(readFileSync(file, 'utf8')).not.toContain(KEY);
  });
});
