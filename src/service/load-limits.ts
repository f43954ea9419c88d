import type { Socket } from 'node:net';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ADMISSION_DEFAULTS, createAdmission, type Admission, type AdmissionOptions } from './admission.js';
import { addressKey } from './auth-throttle.js';
import { sendRawFailure } from './errors-plugin.js';
import { ServiceError } from './service-error.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Never queued or shed (GET /ping, GET /health): they must answer while the API is busy. */
    shed?: boolean;
  }
}

/** How much the service takes on before it sheds, and how long it waits for a client. */
export interface LoadLimits {
  /** The bounded queue in front of the API routes; false turns it off. */
  admission: AdmissionOptions | false;
  /** Open connections; Node refuses (closes) any beyond. */
  maxConnections: number;
  /**
   * Open connections one client address may hold (an IPv6 one counts with its /64); one more
   * is answered 503 and closed at once, so one address cannot take the slots of the others.
   */
  maxConnectionsPerAddress: number;
  /** The whole request, body included, must arrive within this (ms), else 408. */
  requestTimeoutMs: number;
  /** The headers must arrive within this (ms), else 408. */
  headersTimeoutMs: number;
  /** A socket with no traffic for this long (ms) is closed. */
  idleTimeoutMs: number;
  /** How often Node checks the two timeouts above (ms). */
  timeoutCheckIntervalMs: number;
}

export const LOAD_LIMIT_DEFAULTS: LoadLimits = {
  admission: ADMISSION_DEFAULTS,
  maxConnections: 1024,
  // A quarter of the slots: a partner's pool of 200 connections (the bench's load) fits, and
  // one address holding all it may still leaves 768 to everyone else.
  maxConnectionsPerAddress: 256,
  requestTimeoutMs: 30 * 1000, // 30 s
  headersTimeoutMs: 10 * 1000, // 10 s
  idleTimeoutMs: 60 * 1000, // 60 s
  timeoutCheckIntervalMs: 1000, // 1 s (Node's default of 30 s would stretch every timeout)
};

/** Resolves partial limits against the defaults. */
export function resolveLoadLimits(limits: Partial<LoadLimits> = {}): LoadLimits {
  return { ...LOAD_LIMIT_DEFAULTS, ...limits };
}

/** The Fastify server options that carry the limits (Node's own server timeouts). */
export function serverOptionsOf(limits: LoadLimits): {
  requestTimeout: number;
  connectionTimeout: number;
  http: {
    requestTimeout: number;
    headersTimeout: number;
    connectionsCheckingInterval: number;
    requireHostHeader: boolean;
  };
} {
  return {
    requestTimeout: limits.requestTimeoutMs,
    connectionTimeout: limits.idleTimeoutMs,
    http: {
      // Node checks no timeout at all when the headers' one exceeds the request's.
      requestTimeout: limits.requestTimeoutMs,
      headersTimeout: Math.min(limits.headersTimeoutMs, limits.requestTimeoutMs),
      connectionsCheckingInterval: limits.timeoutCheckIntervalMs,
      // Node answers a missing Host with a bare 400 and no hook; the check is ours instead.
      requireHostHeader: false,
    },
  };
}

/**
 * Counts the open connections of each client address (auth-throttle's addressKey: an IPv6
 * client by its /64) and refuses one past `max` before reading it: a raw 503 with
 * `Retry-After`, then the socket is destroyed. Only what is open counts: a connection the
 * server has closed (answered, timed out, destroyed) frees its place at once.
 */
function capConnectionsPerAddress(app: FastifyInstance, max: number): void {
  const open = new Map<string, number>();
  app.server.on('connection', (socket: Socket) => {
    const address = addressKey(socket.remoteAddress);
    const count = (open.get(address) ?? 0) + 1;
    if (count > max) {
      sendRawFailure(
        socket,
        new ServiceError('service_unavailable', `too many connections from this address (at most ${max})`, {
          headers: { 'retry-after': '1' },
        }),
      );
      return;
    }
    open.set(address, count);
    socket.once('close', () => {
      const left = (open.get(address) ?? 1) - 1;
      if (left <= 0) open.delete(address);
      else open.set(address, left);
    });
  });
}

const exempt = (request: FastifyRequest): boolean => request.is404 || request.routeOptions.config.shed === false;

/**
 * Installs the connection cap, the Host check and the bounded queue, in that order, ahead of
 * authentication. Returns the queue (null when off).
 *
 * Shedding on measured event-loop delay (@fastify/under-pressure) was tried and left out: its
 * mean delay over a second becomes "infinite" when the loop was blocked that whole second
 * (a large catalog loading, a slow machine), and it then refused healthy requests. The queue
 * sheds on what it can count (its length and each request's wait) and never guesses.
 */
export async function installLoadLimits(app: FastifyInstance, limits: LoadLimits): Promise<Admission | null> {
  app.server.maxConnections = limits.maxConnections;
  capConnectionsPerAddress(app, limits.maxConnectionsPerAddress);

  app.addHook('onRequest', async (request) => {
    // RFC 9112: an HTTP/1.1 request without Host is a 400 (HTTP/1.0 has no Host).
    if (request.raw.httpVersion === '1.1' && request.headers.host === undefined) {
      throw new ServiceError('invalid_request', 'HTTP/1.1 requests must send a Host header');
    }
  });

  if (limits.admission === false) return null;
  const admission = createAdmission(limits.admission);
  app.addHook('onRequest', (request, reply, done) => {
    if (exempt(request)) {
      done();
      return;
    }
    // 'close' comes once the response is sent or the connection is gone, whichever is first:
    // it frees the slot, or withdraws the request from the line (it is then never admitted).
    // (Not `request.raw.destroyed`: a GET's request stream ends, and is destroyed, while the
    // request waits, and the connection is still there for the answer.)
    const ticket = admission.enter((error, granted) => {
      if (error) {
        done(error);
        return;
      }
      // Leaving is idempotent: one who leaves early (a wrong key waiting out its delay) and
      // again on close frees one place.
      request.leaveQueue = granted ?? null;
      done();
    });
    reply.raw.once('close', () => {
      ticket.cancel();
      request.leaveQueue?.();
    });
  });
  return admission;
}
