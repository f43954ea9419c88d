import type { Socket } from 'node:net';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { envelopeOf, ServiceError } from './service-error.js';

/**
 * The routes as they are registered (an onRoute hook), so a path the service knows, asked
 * with another method, answers 405 with `Allow`: no second list of paths to keep in step.
 */
function createRouteTable(): {
  add(method: string | string[], url: string): void;
  miss(method: string, url: string): ServiceError;
} {
  const routes = new Map<string, { pattern: RegExp; methods: Set<string> }>();
  return {
    add(method, url) {
      let route = routes.get(url);
      if (!route) {
        const source = url
          .split('/')
          .map((part) => (part.startsWith(':') ? '[^/]+' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')));
        route = { pattern: new RegExp(`^${source.join('/')}$`), methods: new Set() };
        routes.set(url, route);
      }
      for (const m of Array.isArray(method) ? method : [method]) route.methods.add(m);
    },
    /** 405 for a known path asked with another method, else 404 (paths outside the prefix included). */
    miss(method, url) {
      const path = url.split('?')[0] ?? '';
      for (const route of routes.values()) {
        if (!route.pattern.test(path)) continue;
        const methods = [...route.methods].sort();
        const use = methods.filter((m) => m !== 'HEAD').join(', ');
        return new ServiceError('method_not_allowed', `${method} is not allowed here; use ${use}`, {
          headers: { allow: methods.join(', ') },
        });
      }
      return new ServiceError('not_found', 'no such path');
    },
  };
}

/** Turns anything thrown into a ServiceError; unknown failures become a bare 500 with no detail. */
export function toServiceError(error: unknown, request: FastifyRequest): ServiceError {
  if (error instanceof ServiceError) return error;
  const fastifyError = error as Partial<FastifyError>;
  switch (fastifyError.code) {
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new ServiceError(
        'unsupported_media_type',
        'requests with a body must send Content-Type: application/json',
      );
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new ServiceError('payload_too_large', 'request body is too large');
    default:
      break;
  }
  if (error instanceof SyntaxError || fastifyError.code === 'FST_ERR_CTP_INVALID_JSON_BODY') {
    return new ServiceError('invalid_request', 'body is not valid JSON');
  }
  const status = fastifyError.statusCode;
  if (typeof status === 'number' && status >= 400 && status < 500) {
    if (status === 413) return new ServiceError('payload_too_large', 'request body is too large');
    if (status === 415) return new ServiceError('unsupported_media_type', 'unsupported content type');
    return new ServiceError('invalid_request', 'malformed request');
  }
  request.log.error({ err: error }, 'unexpected failure');
  return new ServiceError('internal_error', 'internal error');
}

/** Sends the envelope for an error. */
export function sendError(reply: FastifyReply, error: ServiceError): FastifyReply {
  reply.request.errorCode = error.code;
  for (const [name, value] of Object.entries(error.headers)) reply.header(name, value);
  // Refused before its body was read (a 401, a shed request): close the connection after the
  // answer rather than read a body nobody wants, however slowly it comes.
  if (!reply.request.raw.complete) reply.header('connection', 'close');
  return reply.code(error.status).type('application/json; charset=utf-8').send(envelopeOf(error));
}

/**
 * One error handler, one not-found handler, and the framework's own failure hooks, so every
 * failure of any shape answers with the envelope and never a stack trace.
 */
export function installErrorHandling(app: FastifyInstance): void {
  const routes = createRouteTable();
  // Installed before the routes are registered, so it sees every one of them.
  app.addHook('onRoute', (route) => routes.add(route.method, route.url));
  app.setErrorHandler((error, request, reply) => {
    // A bad body on a path that does not exist is still a missing path.
    if (request.is404) return sendError(reply, routes.miss(request.method, request.url));
    return sendError(reply, toServiceError(error, request));
  });
  app.setNotFoundHandler((request, reply) => sendError(reply, routes.miss(request.method, request.url)));
}

const REASON: Record<number, string> = {
  400: 'Bad Request',
  408: 'Request Timeout',
  431: 'Request Header Fields Too Large',
  503: 'Service Unavailable',
};

/** The envelope for a failure Node reports on the socket, before or outside any request. */
function socketFailure(code: string | undefined): ServiceError {
  switch (code) {
    case 'HPE_HEADER_OVERFLOW':
      return new ServiceError('request_header_too_large', 'request headers are too large');
    case 'ERR_HTTP_REQUEST_TIMEOUT':
    case 'ERR_HTTP_HEADERS_TIMEOUT':
      return new ServiceError('request_timeout', 'the request did not arrive in time');
    default:
      return new ServiceError('invalid_request', 'malformed HTTP request');
  }
}

/** How long a raw answer may take to reach the client before its socket is destroyed anyway. */
const RAW_ANSWER_GRACE_MS = 1000;

/**
 * Writes a raw answer with the envelope on a socket no request owns, then destroys the socket
 * as soon as the answer is handed to the system (or after RAW_ANSWER_GRACE_MS if the client
 * does not read). Never `end()` alone: the server's sockets allow half-open connections, so
 * a client that never closes its side would keep the socket, and its place among the
 * server's connections, for as long as it likes.
 */
export function sendRawFailure(socket: Socket, failure: ServiceError): void {
  const body = JSON.stringify(envelopeOf(failure));
  const headers = Object.entries(failure.headers)
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('');
  const grace = setTimeout(() => socket.destroy(), RAW_ANSWER_GRACE_MS);
  grace.unref();
  socket.once('close', () => clearTimeout(grace));
  socket.write(
    `HTTP/1.1 ${failure.status} ${REASON[failure.status] ?? 'Bad Request'}\r\n` +
      `Content-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
      `${headers}Connection: close\r\n\r\n${body}`,
    () => socket.destroy(),
  );
}

/**
 * Raw answer for requests too malformed or too slow to reach Fastify (bad HTTP, oversized
 * headers, the request or headers timeout); the socket is destroyed after it, so a client
 * that sent half a request and keeps its side open holds no connection past the timeout.
 */
export function clientErrorHandler(error: Error & { code?: string }, socket: Socket): void {
  // An answer already started on this socket (a 401 before a slow body) cannot get a second.
  const started = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage?.headersSent === true;
  if (error.code === 'ECONNRESET' || !socket.writable || started) {
    socket.destroy();
    return;
  }
  sendRawFailure(socket, socketFailure(error.code));
}
