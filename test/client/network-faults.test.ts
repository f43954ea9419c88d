import { readFileSync } from 'node:fs';
import { createServer as createHttpServer } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { createServer as createNetServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createClient, type WaitNotice } from '../../src/client/index.js';
import { createSchemeProbe, detectSchemeMismatch, otherSchemeUrl } from '../../src/client/scheme-probe.js';
import { nextStep } from '../../src/cli/hints.js';
import { InterruptedError, NetworkError } from '../../src/errors.js';
import { nginxPlainHttpPage, tlsAlert, tlsFront } from '../helpers/tls-front.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const TLS = {
  key: readFileSync(join(ROOT, 'fixtures', 'tls', 'test-only-key.pem')),
  cert: readFileSync(join(ROOT, 'fixtures', 'tls', 'test-only-cert.pem')),
};

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()?.();
});

/** Listens on 127.0.0.1:0; the open sockets are destroyed at the end. Counts connections. */
async function listen(server: Server): Promise<{ port: number; connections: () => number }> {
  const sockets = new Set<Socket>();
  let count = 0;
  server.on('connection', (socket: Socket) => {
    count += 1;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(
    () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  );
  return { port: (server.address() as AddressInfo).port, connections: () => count };
}

function clientFor(
  baseUrl: string,
  extra: Parameters<typeof createClient>[0] extends infer O ? Partial<O> : never = {},
) {
  const client = createClient({ baseUrl, apiKey: 'sk_test_faults', sleep: async () => undefined, ...extra });
  cleanups.push(() => client.close());
  return client;
}

describe('a silent host (accepts, never answers)', () => {
  it('gives up after two timeouts, says once that it is waiting, and names the wait in the message', async () => {
    const silent = await listen(createNetServer(() => undefined));
    const notices: WaitNotice[] = [];
    const client = clientFor(`http://127.0.0.1:${silent.port}/v1`, {
      timeoutMs: 300,
      waitNoticeMs: 100,
      onWaiting: (n) => notices.push(n),
    });
    const error = await client.ping().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NetworkError);
    expect((error as NetworkError).code).toBe('UND_ERR_HEADERS_TIMEOUT');
    expect((error as NetworkError).message).toBe(
      `GET http://127.0.0.1:${silent.port}/v1/ping failed: no answer within 0.3 s`,
    );
    // The default five retries are not spent on silence: two attempts, two connections.
    expect(silent.connections()).toBe(2);
    expect(notices).toHaveLength(1);
    expect(notices[0]).toMatchObject({ origin: `http://127.0.0.1:${silent.port}`, timeoutMs: 300, attempt: 1 });
    expect(nextStep(error)).toContain('took the connection but did not answer');
  });

  it('tells nothing when the answer comes before the notice is due', async () => {
    const server = await listen(
      createHttpServer((_req, res) =>
        res.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"ok"}'),
      ),
    );
    const notices: WaitNotice[] = [];
    const client = clientFor(`http://127.0.0.1:${server.port}/v1`, {
      waitNoticeMs: 5_000,
      onWaiting: (n) => notices.push(n),
    });
    await client.ping();
    expect(notices).toEqual([]);
  });
});

describe('the wrong scheme', () => {
  it('https:// against a plain HTTP server: one attempt, no OpenSSL text, the http:// URL named', async () => {
    const plain = await listen(createHttpServer((_req, res) => res.end('{}')));
    const baseUrl = `https://127.0.0.1:${plain.port}/v1`;
    const error = await clientFor(baseUrl)
      .ping()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NetworkError);
    expect((error as NetworkError).code).toBe('server_speaks_plain_http');
    expect((error as NetworkError).message).toBe(`GET ${baseUrl}/ping failed: the server speaks plain HTTP, not TLS`);
    expect(String((error as Error).message)).not.toMatch(/SSL routines|openssl/i);
    expect(nextStep(error)).toBe(`the server speaks plain HTTP: did you mean http://127.0.0.1:${plain.port}/v1?`);
    // The request and the probe (a plain request answered, a TLS handshake refused): no retry.
    expect(plain.connections()).toBe(3);
  });

  it('http:// against a TLS server: one attempt, the https:// URL named', async () => {
    const tls = await listen(createHttpsServer(TLS, (_req, res) => res.end('{}')));
    const baseUrl = `http://127.0.0.1:${tls.port}/v1`;
    const error = await clientFor(baseUrl)
      .ping()
      .catch((e: unknown) => e);
    expect((error as NetworkError).code).toBe('server_speaks_tls');
    expect((error as NetworkError).message).toBe(`GET ${baseUrl}/ping failed: the server speaks TLS, not plain HTTP`);
    expect(nextStep(error)).toBe(`the server speaks TLS: did you mean https://127.0.0.1:${tls.port}/v1?`);
    expect(tls.connections()).toBe(2);
  });

  it("http:// against a TLS port that answers plain requests with a 400 page (nginx's way): the https:// URL named", async () => {
    // One port for both, as nginx: a TLS hello goes to the TLS server, anything else gets the page.
    const front = await tlsFront({ onPlain: nginxPlainHttpPage });
    cleanups.push(front.close);
    const error = await clientFor(`http://127.0.0.1:${front.port}/v1`)
      .ping()
      .catch((e: unknown) => e);
    expect((error as NetworkError).code).toBe('server_speaks_tls');
    expect(nextStep(error)).toBe(`the server speaks TLS: did you mean https://127.0.0.1:${front.port}/v1?`);
  });

  it('http:// against a TLS port that answers plain bytes with a TLS alert (not HTTP at all): the https:// URL named', async () => {
    const front = await tlsFront({ onPlain: tlsAlert });
    cleanups.push(front.close);
    const error = await clientFor(`http://127.0.0.1:${front.port}/v1`)
      .ping()
      .catch((e: unknown) => e);
    expect((error as NetworkError).code).toBe('server_speaks_tls');
    expect(front.connections()).toBe(2);
  });

  it('a reply that is not HTTP from a port that is not TLS is named as such, not a TLS server', async () => {
    const banner = await listen(createNetServer((socket) => socket.end('SSH-2.0-OpenSSH_9.6\r\n')));
    const error = await clientFor(`http://127.0.0.1:${banner.port}/v1`, { retry: { maxAttempts: 1 } })
      .ping()
      .catch((e: unknown) => e);
    expect((error as NetworkError).code).toBe('HPE_INVALID_RESPONSE');
    expect((error as NetworkError).message).toMatch(/does not match the HTTP\/1\.1 protocol/);
  });

  it("a TLS failure on a port that answers plain requests with a 400 page (nginx's TLS port) is not called plain HTTP", async () => {
    const front = await tlsFront({ onPlain: nginxPlainHttpPage });
    cleanups.push(front.close);
    // The failure codes after which the probe asks (an alert, or a proxy in the way): the port
    // speaks TLS, so the hint must not send the key to http:// in clear text.
    for (const code of ['EPROTO', 'ERR_SSL_WRONG_VERSION_NUMBER']) {
      expect(await detectSchemeMismatch(new URL(`https://127.0.0.1:${front.port}/v1/ping`), code), code).toBeNull();
    }
    // A plain HTTP server is still named as such.
    const plain = await listen(createHttpServer((_req, res) => res.end('{}')));
    expect(await detectSchemeMismatch(new URL(`https://127.0.0.1:${plain.port}/v1/ping`), 'EPROTO')).toBe(
      'server_speaks_plain_http',
    );
  });

  it('a plain HTTP 400 without an envelope on a port that is not TLS stays what it is', async () => {
    const plain = await listen(
      createHttpServer((_req, res) => res.writeHead(400, { 'content-type': 'text/html' }).end('<html>bad</html>')),
    );
    const error = await clientFor(`http://127.0.0.1:${plain.port}/v1`)
      .ping()
      .catch((e: unknown) => e);
    expect((error as { code: string }).code).toBe('http_400');
  });

  it('a server that closes every connection is not called a TLS server', async () => {
    const closing = await listen(createNetServer((socket) => socket.destroy()));
    const error = await clientFor(`http://127.0.0.1:${closing.port}/v1`, { retry: { maxAttempts: 1 } })
      .ping()
      .catch((e: unknown) => e);
    expect((error as NetworkError).code).not.toBe('server_speaks_tls');
    expect(['UND_ERR_SOCKET', 'ECONNRESET']).toContain((error as NetworkError).code);
  });

  it('an outage that closes every connection costs one probe per client, not one per retry', async () => {
    // Requests and probes are told apart by their first bytes: a TLS ClientHello starts with 0x16.
    let requests = 0;
    let probes = 0;
    const closing = await listen(
      createNetServer((socket) => {
        socket.once('data', (first: Buffer) => {
          if (first[0] === 0x16) probes += 1;
          else requests += 1;
          socket.destroy();
        });
      }),
    );
    const baseUrl = `http://127.0.0.1:${closing.port}/v1`;
    const client = clientFor(baseUrl, { retry: { maxAttempts: 4 } });
    for (let call = 0; call < 2; call += 1) {
      const error = await client.ping().catch((e: unknown) => e);
      expect(['UND_ERR_SOCKET', 'ECONNRESET']).toContain((error as NetworkError).code);
    }
    expect(requests).toBe(8);
    expect(probes).toBe(1);
    // Another client asks for itself.
    await clientFor(baseUrl, { retry: { maxAttempts: 1 } })
      .ping()
      .catch((e: unknown) => e);
    expect(probes).toBe(2);
  });

  it('a port that could not be reached is no answer: once a TLS server listens there, the next failure says so', async () => {
    // A port nothing listens on (a server restarting): taken, then let go.
    const closed = createNetServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const { port } = closed.address() as AddressInfo;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const probe = createSchemeProbe();
    const url = new URL(`http://127.0.0.1:${port}/v1/ping`);
    expect(await probe(url, 'ECONNRESET')).toBeNull();
    // The server is back, on its TLS port.
    const tlsServer = createHttpsServer(TLS, (_req, res) => res.end('{}'));
    await new Promise<void>((resolve) => tlsServer.listen(port, '127.0.0.1', resolve));
    cleanups.push(() => new Promise<void>((resolve) => tlsServer.close(() => resolve())));
    expect(await probe(url, 'UND_ERR_SOCKET')).toBe('server_speaks_tls');
  });

  it('a probe that timed out is no answer: the next failure asks the port again', async () => {
    let answering = false;
    const tlsServer = createHttpsServer(TLS, (_req, res) => res.end('{}'));
    cleanups.push(() => new Promise<void>((resolve) => tlsServer.close(() => resolve())));
    // Silent at first (takes the connection, never answers), then a TLS server.
    const front = await listen(
      createNetServer((socket) => {
        if (answering) tlsServer.emit('connection', socket);
      }),
    );
    const probe = createSchemeProbe({ timeoutMs: 200 });
    const url = new URL(`http://127.0.0.1:${front.port}/v1/ping`);
    expect(await probe(url, 'UND_ERR_SOCKET')).toBeNull();
    answering = true;
    expect(await probe(url, 'UND_ERR_SOCKET')).toBe('server_speaks_tls');
    expect(front.connections()).toBe(2);
  });

  it('a probe cut short by Ctrl-C is no answer: the next failure asks the port again', async () => {
    const controller = new AbortController();
    let probes = 0;
    const tlsServer = createHttpsServer(TLS, (_req, res) => res.end('{}'));
    cleanups.push(() => new Promise<void>((resolve) => tlsServer.close(() => resolve())));
    // The first probe is stopped as it connects; the second completes its handshake.
    const front = await listen(
      createNetServer((socket) => {
        probes += 1;
        if (probes === 1) return void controller.abort();
        tlsServer.emit('connection', socket);
      }),
    );
    const probe = createSchemeProbe();
    const url = new URL(`http://127.0.0.1:${front.port}/v1/ping`);
    expect(await probe(url, 'UND_ERR_SOCKET', controller.signal)).toBeNull();
    expect(await probe(url, 'UND_ERR_SOCKET')).toBe('server_speaks_tls');
    expect(await probe(url, 'ECONNRESET')).toBe('server_speaks_tls');
    expect(probes).toBe(2);
  });

  it(
    'Ctrl-C during the probe ends it at once: an interruption, the probe socket closed, no wait for the probe ' +
      'timeout',
    async () => {
      // The first connection is closed (a failure that may mean TLS); the probe's connection then meets silence.
      let seen = 0;
      const controller = new AbortController();
      let probeClosed: Promise<void> = Promise.resolve();
      const server = createNetServer((socket) => {
        seen += 1;
        if (seen === 1) return void socket.destroy();
        probeClosed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
        controller.abort();
      });
      await listen(server);
      const { port } = server.address() as AddressInfo;
      // The probe would wait up to 5 s for a TLS answer that never comes. Its timer is frozen here, so the
      // ping can only end because Ctrl-C ended the probe.
      vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
      let error: unknown;
      try {
        error = await clientFor(`http://127.0.0.1:${port}/v1`)
          .ping({ signal: controller.signal })
          .catch((e: unknown) => e);
        await probeClosed;
      } finally {
        vi.useRealTimers();
      }
      expect(error).toBeInstanceOf(InterruptedError);
      expect(seen).toBe(2);
    },
  );

  it.each([
    ['https://host.example/v1', 'http://host.example:443/v1'],
    ['http://host.example/v1', 'https://host.example:80/v1'],
    ['https://127.0.0.1:8787/v1', 'http://127.0.0.1:8787/v1'],
    ['http://[::1]:443/api/v1', 'https://[::1]/api/v1'],
    ['https://host.example', 'http://host.example:443'],
  ])('the other scheme of %s is %s (same port)', (from, to) => {
    expect(otherSchemeUrl(from)).toBe(to);
  });
});
