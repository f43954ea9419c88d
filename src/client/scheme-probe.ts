import { connect as netConnect, isIP, type Socket } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import type { SchemeMismatch } from './scheme-words.js';

export { describeMismatch, mismatchHint, otherSchemeUrl, type SchemeMismatch } from './scheme-words.js';

/**
 * Tells a wrong scheme from a broken host. https:// against a plain HTTP server fails in the
 * TLS handshake with OpenSSL's "wrong version number"; http:// against a TLS server sees the
 * connection closed (Node), bytes that are not HTTP, or a 400 page (nginx). Each of those has
 * other causes too, so after one of them the port is asked once, with the other scheme's
 * first bytes, before the failure is named a mismatch (and, for https://, once more whether it
 * completes a TLS handshake: a TLS port may answer a plain request too). A client keeps the
 * answer of the first probe that reached the port (createSchemeProbe): it does not change
 * between its retries.
 */

/** Failures of an https:// request after which the server may speak plain HTTP. */
const TLS_AGAINST_PLAIN = new Set(['ERR_SSL_WRONG_VERSION_NUMBER', 'ERR_SSL_PACKET_LENGTH_TOO_LONG', 'EPROTO']);
/**
 * Failures of an http:// request after which the server may speak TLS (`http_400`: nginx's "plain HTTP request sent to
 * HTTPS port").
 */
const PLAIN_AGAINST_TLS = new Set(['UND_ERR_SOCKET', 'ECONNRESET', 'http_400']);

/** The longest a probe waits: it runs after a failure, and must not double a long `--timeout`. */
const PROBE_TIMEOUT_MS = 5 * 1000; // 5 s

/** Whether a failure of a request to `url` is worth a probe for the other scheme. */
export function mayBeSchemeMismatch(url: URL, code: string): boolean {
  if (url.protocol === 'https:') return TLS_AGAINST_PLAIN.has(code);
  return PLAIN_AGAINST_TLS.has(code) || code.startsWith('HPE_');
}

/**
 * After a failure of a request to `url` with `code`: the mismatch, when a probe of the same
 * port confirms the server speaks the other scheme; else null (the failure stands).
 */
export async function detectSchemeMismatch(
  url: URL,
  code: string,
  timeoutMs: number = PROBE_TIMEOUT_MS,
  signal?: AbortSignal,
): Promise<SchemeMismatch | null> {
  return (await probeScheme(url, code, timeoutMs, signal)).mismatch;
}

/**
 * What a probe found, and whether the port was reached: it took the probe's connection and
 * answered, refused the handshake or closed it. A port that could not be connected to (a
 * server restarting), a probe that timed out or one cut short says nothing lasting.
 */
interface ProbeFinding {
  mismatch: SchemeMismatch | null;
  reached: boolean;
}

/** One probe of the port, as detectSchemeMismatch, saying whether the port was reached. */
async function probeScheme(
  url: URL,
  code: string,
  timeoutMs: number = PROBE_TIMEOUT_MS,
  signal?: AbortSignal,
): Promise<ProbeFinding> {
  if (!mayBeSchemeMismatch(url, code) || signal?.aborted) return { mismatch: null, reached: false };
  const wait = Math.min(timeoutMs, PROBE_TIMEOUT_MS);
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const port = Number(url.port || (url.protocol === 'https:' ? 443 : 80));
  if (url.protocol === 'https:') {
    // nginx answers a plain request on its TLS port with an HTTP 400 page: a port that answers
    // plain HTTP is a plain server only if it also refuses a TLS handshake. Naming a TLS port
    // plain would send the user to http://, the key in clear text, after a TLS failure of
    // another kind (an alert, a proxy in the way).
    const plain = await speaksPlainHttp(host, port, wait, signal);
    if (!plain.answer) return { mismatch: null, reached: plain.reached };
    const tls = await speaksTls(host, port, wait, signal);
    if (tls.answer) return { mismatch: null, reached: true };
    // The port spoke plain HTTP just now: a handshake it did not complete is not TLS.
    return { mismatch: 'server_speaks_plain_http', reached: tls.reached };
  }
  const tls = await speaksTls(host, port, wait, signal);
  return { mismatch: tls.answer ? 'server_speaks_tls' : null, reached: tls.reached };
}

/** Asks whether a failure of a request means the wrong scheme: the mismatch, or null when the failure stands. */
export type SchemeProbe = (url: URL, code: string, signal?: AbortSignal) => Promise<SchemeMismatch | null>;

/**
 * A probe for one client (one base URL, so one host and port) that keeps the port's answer
 * once a probe reached it, and gives it for every later failure: without it an outage that
 * closes connections costs a probe, up to 5 s, per retry. A probe that could not connect, timed
 * out or was cut short by the caller's signal says nothing about the port (a server restarting
 * may speak TLS once it is back), so the next failure asks again. Failures at once share one probe.
 */
export function createSchemeProbe(options: { timeoutMs?: number } = {}): SchemeProbe {
  let known: { mismatch: SchemeMismatch | null } | null = null;
  let asking: Promise<SchemeMismatch | null> | null = null;
  return (url, code, signal) => {
    if (!mayBeSchemeMismatch(url, code) || signal?.aborted) return Promise.resolve(null);
    if (known !== null) return Promise.resolve(known.mismatch);
    if (asking === null) {
      const asked = probeScheme(url, code, options.timeoutMs, signal).then((found) => {
        if (found.reached && !signal?.aborted) known = { mismatch: found.mismatch };
        if (asking === asked) asking = null;
        return found.mismatch;
      });
      asking = asked;
    }
    return asking;
  };
}

/** A probe's answer, and whether the port was reached (see ProbeFinding). */
interface PortAnswer {
  answer: boolean;
  reached: boolean;
}

/** Whether the port answers a plain HTTP request with an HTTP status line. */
function speaksPlainHttp(
  host: string,
  port: number,
  timeoutMs: number,
  signal: AbortSignal | undefined,
): Promise<PortAnswer> {
  const hostHeader = isIP(host) === 6 ? `[${host}]` : host;
  return firstBytes(netConnect({ host, port }), timeoutMs, signal, (socket) => {
    socket.write(`HEAD / HTTP/1.1\r\nHost: ${hostHeader}:${port}\r\nConnection: close\r\n\r\n`);
  }).then(({ bytes, reached }) => ({ answer: bytes?.toString('latin1').startsWith('HTTP/') === true, reached }));
}

/** Whether the port completes a TLS handshake (any certificate: only the protocol is asked). */
function speaksTls(
  host: string,
  port: number,
  timeoutMs: number,
  signal: AbortSignal | undefined,
): Promise<PortAnswer> {
  return new Promise((resolve) => {
    const socket = tlsConnect({
      host,
      port,
      rejectUnauthorized: false,
      ...(isIP(host) === 0 ? { servername: host } : {}),
    });
    let connected = false;
    const done = (answer: boolean, reached: boolean): void => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', stop);
      socket.destroy();
      resolve({ answer, reached });
    };
    // Ctrl-C ends the probe at once: the question no longer matters.
    const stop = (): void => done(false, false);
    signal?.addEventListener('abort', stop, { once: true });
    const timer = setTimeout(() => done(false, false), timeoutMs);
    socket.once('connect', () => {
      connected = true;
    });
    socket.once('secureConnect', () => done(true, true));
    // A TLS alert from the server (it wants a client certificate, say) is TLS all the same.
    socket.once('error', (error: NodeJS.ErrnoException) => done(/^ERR_SSL_.*ALERT/.test(error.code ?? ''), connected));
    socket.once('close', () => done(false, connected));
  });
}

/**
 * The first bytes a socket receives after `start` (run once it connects), or null on an error,
 * a close, the timeout or an abort; `reached` when the port took the connection and answered
 * or closed it (not on a connect error, the timeout with nothing received, or an abort).
 */
function firstBytes(
  socket: Socket,
  timeoutMs: number,
  signal: AbortSignal | undefined,
  start: (socket: Socket) => void,
): Promise<{ bytes: Buffer | null; reached: boolean }> {
  return new Promise((resolve) => {
    let received = Buffer.alloc(0);
    let connected = false;
    const done = (bytes: Buffer | null, reached: boolean): void => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', stop);
      socket.destroy();
      resolve({ bytes, reached });
    };
    const got = (): Buffer | null => (received.length > 0 ? received : null);
    const stop = (): void => done(null, false);
    signal?.addEventListener('abort', stop, { once: true });
    const timer = setTimeout(() => done(got(), received.length > 0), timeoutMs);
    socket.once('connect', () => {
      connected = true;
      start(socket);
    });
    socket.on('data', (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      if (received.length >= 5) done(received, true);
    });
    socket.once('error', () => done(null, connected));
    socket.once('close', () => done(got(), connected));
  });
}
