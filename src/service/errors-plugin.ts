import type { Socket } from 'node:net';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { VERSION_PREFIX } from '../contract/paths.js';
import { envelopeOf, ServiceError } from './service-error.js';

/** Paths the service knows, with their one method: anything else on them is 405. */
const KNOWN_PATHS: ReadonlyArray<{ pattern: RegExp; method: string }> = [
  { pattern: /^\/ping$/, method: 'GET' },
  { pattern: /^\/health$/, method: 'GET' },
  { pattern: /^\/users$/, method: 'POST' },
  { pattern: /^\/users\/[^/]+\/media$/, method: 'POST' },
  { pattern: /^\/users\/[^/]+\/sync-complete$/, method: 'POST' },
  { pattern: /^\/users\/[^/]+\/events$/, method: 'GET' },
  { pattern: /^\/users\/[^/]+\/stats$/, method: 'GET' },
];

/** 405 for a known path asked with another method, else 404 (paths outside the prefix included). */
export function routeMiss(method: string, url: string): ServiceError {
  const path = url.split('?')[0] ?? '';
  if (path.startsWith(`${VERSION_PREFIX}/`)) {
    const rest = path.slice(VERSION_PREFIX.length);
    const known = KNOWN_PATHS.find((entry) => entry.pattern.test(rest));
    if (known) {
      const allow = known.method === 'GET' ? 'GET, HEAD' : known.method;
      return new ServiceError('method_not_allowed', `${method} is not allowed here; use ${known.method}`, {
        headers: { allow },
      });
    }
  }
  return new ServiceError('not_found', 'no such path');
}

/** Turns anything thrown into a ServiceError; unknown failures become a bare 500 with no detail. */
export function toServiceError(error: unknown, request: FastifyRequest): ServiceError {
  if (error instanceof ServiceError) return error;
  const fastifyError = error as Partial<FastifyError>;
  switch (fastifyError.code) {
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new ServiceError('unsupported_media_type', 'requests with a body must send Content-Type: application/json');
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
  for (const [name, value] of Object.entries(error.headers)) reply.header(name, value);
  return reply.code(error.status).type('application/json; charset=utf-8').send(envelopeOf(error));
}

/**
 * One error handler, one not-found handler, and the framework's own failure hooks, so every
 * failure of any shape answers with the envelope and never a stack trace.
 */
export function installErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((error, request, reply) => {
    // A bad body on a path that does not exist is still a missing path.
    if (request.is404) return sendError(reply, routeMiss(request.method, request.url));
    return sendError(reply, toServiceError(error, request));
  });
  app.setNotFoundHandler((request, reply) => sendError(reply, routeMiss(request.method, request.url)));
}

/** Raw answer for requests too malformed to reach Fastify (bad HTTP, oversized headers). */
export function clientErrorHandler(error: Error & { code?: string }, socket: Socket): void {
  if (error.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy();
    return;
  }
  const tooLarge = error.code === 'HPE_HEADER_OVERFLOW';
  const failure = tooLarge
    ? new ServiceError('request_header_too_large', 'request headers are too large')
    : new ServiceError('invalid_request', 'malformed HTTP request');
  const body = JSON.stringify(envelopeOf(failure));
  socket.end(
    `HTTP/1.1 ${failure.status} ${tooLarge ? 'Request Header Fields Too Large' : 'Bad Request'}\r\n` +
      `Content-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
      `Connection: close\r\n\r\n${body}`,
  );
}
