import { plural } from '../../src/util/plural.js';
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer as createHttpServer, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { barRows, renderScreen, showsWhole } from './helpers/screen.js';
import { BIN, collect, ROOT, runCamroll, spawnCamroll, tempHome, waitForStderr } from './helpers/camroll.js';
import { generateLibrary } from './helpers/library.js';
import { startServe } from './helpers/serve.js';
import { startFreezingRelay, startSilentHost, type SilentHost } from './helpers/silent-host.js';

const KEY = 'sk_test_network_0001';
const USER = '3f1c2a8e-4b5d-4c6e-8f90-123456789abc';
const hasScript = spawnSync('script', ['--version'], { stdio: 'ignore' }).status === 0;

describe('a silent host (takes the connection, never answers)', () => {
  const home = tempHome();
  const env = { ...home.env, CAMROLL_API_KEY: KEY };
  let silent: SilentHost;
  let lib: string;
  beforeAll(async () => {
    silent = await startSilentHost();
    lib = mkdtempSync(join(tmpdir(), 'camroll-lib-'));
    generateLibrary({ dir: lib, files: 40, anchorShare: 0.2, seed: 11, perFolder: 20 });
  });
  afterAll(async () => {
    await silent.close();
    rmSync(lib, { recursive: true, force: true });
    rmSync(home.dir, { recursive: true, force: true });
  });

  it.each(['ping', 'health'])(
    '%s --timeout 1 gives up after about two timeouts, saying it waited for the host',
    async (command) => {
      const baseUrl = `http://127.0.0.1:${silent.port}/v1`;
      const started = Date.now();
      const result = await runCamroll([command, '--base-url', baseUrl, '--timeout', '1'], { env });
      const elapsed = Date.now() - started;
      expect(result.code, result.stderr).toBe(1);
      // Two waits of 1 s, a backoff under 0.5 s, and the start of the binary on a loaded machine.
      expect(elapsed).toBeLessThan(10_000);
      expect(result.stderr).toContain(
        `camroll: waiting for http://127.0.0.1:${silent.port}: no answer after 0.5 s (gives up after 1 s)`,
      );
      expect(result.stderr).toContain(
        `camroll: GET ${baseUrl}/${command} failed: no answer within 1 s [UND_ERR_HEADERS_TIMEOUT]\n`,
      );
      expect(result.stderr).toContain('took the connection but did not answer (a hung server or proxy?)');
      // One retry, not five.
      expect(result.stderr.match(/retrying after/g)).toHaveLength(1);
    },
  );

  it('sync --timeout 2: the start-up /health ends as an outage within 30 s', async () => {
    const started = Date.now();
    const result = await runCamroll(
      [
        'sync',
        lib,
        '--email',
        'silent@example.com',
        '--base-url',
        `http://127.0.0.1:${silent.port}/v1`,
        '--timeout',
        '2',
      ],
      { env },
    );
    expect(Date.now() - started).toBeLessThan(30_000);
    expect(result.code, result.stderr).toBe(1);
    expect(result.stderr).toContain(`camroll: waiting for http://127.0.0.1:${silent.port}`);
    expect(result.stderr).toMatch(
      /the host stopped answering: no answer within 2 s, 2 times in a row \(last: GET \S+\/v1\/health, UND_ERR_HEADERS_TIMEOUT\); a hung server or proxy\? if it is only slow, raise --timeout; nothing was sent: run the same command again when the host is back \[host_unreachable\]/,
    );
    expect(result.stderr).not.toContain(KEY);
  });

  it(
    'sync --timeout 2: a host that falls silent mid-sync stops it with the outage summary within 30 s; the rerun ' +
      'resumes',
    async () => {
      const serve = await startServe({ env, db: join(home.dir, 'silent.db') });
      const relay = await startFreezingRelay({ host: '127.0.0.1', port: Number(new URL(serve.baseUrl).port) });
      try {
        const baseUrl = `http://127.0.0.1:${relay.port}/v1`;
        const args = [
          'sync',
          lib,
          '--email',
          'falls-silent@example.com',
          '--batch-size',
          '2',
          '--concurrency',
          '1',
          '--base-url',
          baseUrl,
          '--timeout',
          '2',
        ];
        const child = spawnCamroll([...args, '-v', '--json'], { env });
        const done = collect(child, 90_000);
        await waitForStderr(child, done, /POST \S+\/media -> 200/);
        relay.freeze();
        const frozenAt = Date.now();
        const stopped = await done;
        expect(Date.now() - frozenAt).toBeLessThan(30_000);
        expect(stopped.code, stopped.stderr).toBe(1);
        const summary = JSON.parse(stopped.stdout) as { outcome: string; pending: number; sync_complete: boolean };
        expect(summary).toMatchObject({ outcome: 'outage', sync_complete: false });
        expect(summary.pending).toBeGreaterThan(0);
        expect(stopped.stderr).toContain(`camroll: waiting for http://127.0.0.1:${relay.port}`);
        expect(stopped.stderr).toMatch(
          /sync stopped: the host stopped answering: no answer within 2 s, \d+ times in a row \(last: POST \S+\/media, UND_ERR_HEADERS_TIMEOUT\)/,
        );
        expect(stopped.stderr).toContain(
          `${plural(summary.pending, 'item')} ${summary.pending === 1 ? 'stays' : 'stay'} pending and the journal is consistent: run the same command again to resume ` +
            `[host_unreachable]`,
        );

        relay.thaw();
        const rerun = await runCamroll([...args, '--json'], { env });
        expect(rerun.code, rerun.stderr).toBe(0);
        expect(JSON.parse(rerun.stdout)).toMatchObject({
          outcome: 'ok',
          sync_complete: true,
          resumed_pending: summary.pending,
        });
      } finally {
        await relay.close();
        await serve.stop();
      }
    },
  );

  const TITLE = 'sync on a terminal says it is waiting for the host';
  it.skipIf(!hasScript)(hasScript ? TITLE : `${TITLE} (skipped: needs util-linux script)`, async () => {
    const command = [
      process.execPath,
      BIN,
      'sync',
      lib,
      '--email',
      'tty-silent@example.com',
      '--base-url',
      `http://127.0.0.1:${silent.port}/v1`,
      '--timeout',
      '2',
    ]
      .map((a) => `'${a}'`)
      .join(' ');
    const child = spawn('script', ['-qec', `stty cols 80 rows 24; exec ${command}`, '/dev/null'], {
      env: { ...env, TERM: 'xterm' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const result = await collect(child, 60_000);
    // The line is whole above the bars, wrapped at the terminal's 80 columns.
    const screen = renderScreen(result.stdout + result.stderr, 80);
    expect(
      showsWhole(
        screen,
        `camroll: waiting for http://127.0.0.1:${silent.port}: no answer after 1 s (gives up after 2 s)`,
      ),
    ).toBe(true);
    expect(showsWhole(screen, '[host_unreachable]')).toBe(true);
    expect(barRows(screen)).toEqual([]);
  });
});

describe('the wrong scheme, in every command', () => {
  const home = tempHome();
  const env = { ...home.env, CAMROLL_API_KEY: KEY };
  const servers: Server[] = [];
  const sockets = new Set<Socket>();
  let plainPort = 0;
  let tlsPort = 0;
  const listen = async (server: Server): Promise<number> => {
    servers.push(server);
    server.on('connection', (s: Socket) => {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return (server.address() as AddressInfo).port;
  };
  beforeAll(async () => {
    const answer = (_req: unknown, res: import('node:http').ServerResponse): void => {
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"ok"}');
    };
    plainPort = await listen(createHttpServer(answer));
    const tls = {
      key: readFileSync(join(ROOT, 'fixtures', 'tls', 'test-only-key.pem')),
      cert: readFileSync(join(ROOT, 'fixtures', 'tls', 'test-only-cert.pem')),
    };
    tlsPort = await listen(createHttpsServer(tls, answer));
  });
  afterAll(async () => {
    for (const s of sockets) s.destroy();
    await Promise.all(servers.map((s) => new Promise<void>((resolve) => s.close(() => resolve()))));
    rmSync(home.dir, { recursive: true, force: true });
  });

  const COMMANDS: string[][] = [
    ['ping'],
    ['health'],
    ['stats', '--user', USER],
    ['events', '--user', USER],
    ['sync', join(ROOT, 'fixtures', 'library', 'events'), '--email', 'scheme@example.com'],
  ];

  it.each(COMMANDS)(
    '%s: https:// against plain HTTP names the http:// URL, without retries or OpenSSL text',
    async (...args) => {
      const result = await runCamroll([...args, '--base-url', `https://127.0.0.1:${plainPort}/v1`], { env });
      expect(result.code, result.stderr).toBe(1);
      expect(result.stderr).toContain('the server speaks plain HTTP, not TLS [server_speaks_plain_http]');
      expect(result.stderr).toContain(`  the server speaks plain HTTP: did you mean http://127.0.0.1:${plainPort}/v1?`);
      expect(result.stderr).not.toMatch(/retrying|SSL routines|openssl|a bug in camroll/i);
    },
  );

  it.each(COMMANDS)('%s: http:// against TLS names the https:// URL, without retries', async (...args) => {
    const result = await runCamroll([...args, '--base-url', `http://127.0.0.1:${tlsPort}/v1`], { env });
    expect(result.code, result.stderr).toBe(1);
    expect(result.stderr).toContain('the server speaks TLS, not plain HTTP [server_speaks_tls]');
    expect(result.stderr).toContain(`  the server speaks TLS: did you mean https://127.0.0.1:${tlsPort}/v1?`);
    expect(result.stderr).not.toMatch(/retrying|other side closed|a bug in camroll/i);
  });

  it('doctor says it in one line (reach.ping), with the fix', async () => {
    const plain = await runCamroll(['doctor', '--base-url', `https://127.0.0.1:${plainPort}/v1`], { env });
    expect(plain.code).toBe(1);
    expect(plain.stdout).toMatch(
      /^reach\.ping +fail +the server speaks plain HTTP, not TLS \(ERR_SSL_WRONG_VERSION_NUMBER\)$/m,
    );
    expect(plain.stdout).toContain(
      `reach.ping: the server speaks plain HTTP: did you mean http://127.0.0.1:${plainPort}/v1?`,
    );
    expect(plain.stdout + plain.stderr).not.toMatch(/SSL routines/);
    const tls = await runCamroll(['doctor', '--base-url', `http://127.0.0.1:${tlsPort}/v1`], { env });
    expect(tls.code).toBe(1);
    expect(tls.stdout).toMatch(/^reach\.ping +fail +the server speaks TLS, not plain HTTP \(UND_ERR_SOCKET\)$/m);
    expect(tls.stdout).toContain(`reach.ping: the server speaks TLS: did you mean https://127.0.0.1:${tlsPort}/v1?`);
  });
});
