import type { z } from 'zod';
import { ErrorEnvelope } from '../contract/index.js';
import { ApiError, CLIENT_ERROR_CODES, ContractViolationError, NetworkError, type RequestInfo } from '../errors.js';
import { formatSeconds } from '../util/seconds.js';
import { parseRetryAfter } from './retry.js';
import { redact } from './scrub.js';

/** What the error builders need to know about a response (read through `readHostAnswer`: no key in it). */
export interface ResponseFacts {
  /** `METHOD <full URL>` of the call, for messages. */
  endpoint: string;
  request: RequestInfo;
  status: number;
  headers: Record<string, string | string[] | undefined>;
  bodyText: string;
}

/**
 * Turns a non-2xx answer into an ApiError. The envelope's `code` is kept as is (an unknown code
 * is handled by `status` downstream); a body that is not an envelope gets `http_<status>`.
 * The facts come scrubbed of the key (src/client/scrub.ts), code and details included.
 */
export function apiErrorFromResponse(facts: ResponseFacts): ApiError {
  const retryAfterSeconds = parseRetryAfter(facts.headers['retry-after']);
  let json: unknown;
  try {
    json = JSON.parse(facts.bodyText);
  } catch {
    json = undefined;
  }
  const envelope = ErrorEnvelope.safeParse(json);
  if (envelope.success) {
    const { code, message, details } = envelope.data.error;
    return new ApiError(facts.status, code, `${facts.endpoint} answered HTTP ${facts.status}: ${message}`, {
      details: details ?? null,
      retryAfterSeconds,
      request: facts.request,
    });
  }
  return new ApiError(
    facts.status,
    `http_${facts.status}`,
    `${facts.endpoint} answered HTTP ${facts.status} without an error envelope${bodyHint(facts)}`,
    { retryAfterSeconds, request: facts.request },
  );
}

/**
 * Checks a 2xx body against a contract schema and returns the body as the service sent it:
 * members the contract does not name, and the service's member order, survive, so `--json`
 * prints the service's own object. (Response schemas therefore never transform or default.)
 * A body that is not JSON or breaks the schema is a ContractViolationError naming the
 * endpoint and the first offending path.
 */
export function parseBody<S extends z.ZodType>(
  schema: S,
  facts: ResponseFacts,
  fastCheck?: (body: unknown) => boolean,
): z.output<S> {
  let json: unknown;
  try {
    json = JSON.parse(facts.bodyText);
  } catch {
    throw new ContractViolationError(
      `${facts.endpoint} answered HTTP ${facts.status} with a body that is not JSON${bodyHint(facts)}`,
      {
        details: { endpoint: facts.endpoint, status: facts.status, not_json: true },
        request: facts.request,
      },
    );
  }
  // A hand-written check may vouch for the common body; when it is not sure, the schema decides.
  if (fastCheck?.(json) === true) return json as z.output<S>;
  const result = schema.safeParse(json);
  // Validated above; a schema's output would drop unknown members and reorder the rest.
  if (result.success) return json as z.output<S>;
  const issue = result.error.issues[0];
  const where = issue && issue.path.length > 0 ? issue.path.join('.') : '(root)';
  throw new ContractViolationError(
    `${facts.endpoint} answered with a body that breaks the contract at ${where}: ${issue?.message ?? 'invalid'}`,
    {
      details: {
        endpoint: facts.endpoint,
        status: facts.status,
        issues: result.error.issues.slice(0, 5).map((i) => ({ path: i.path.map(String), message: i.message })),
      },
      request: facts.request,
    },
  );
}

/**
 * The code of a reply that is not HTTP (a TLS alert, an SSH banner). undici 7 builds its
 * HTTPParserError without llhttp's `HPE_*` code, which left such a failure `network_error`,
 * and the scheme probe (which asks after an `HPE_*` failure) never ran for it.
 */
export const NOT_HTTP_CODE = CLIENT_ERROR_CODES.notHttp[0];

/** A transport failure's code: its own, its cause's, NOT_HTTP_CODE for a reply not HTTP, else `network_error`. */
export function transportFailureCode(error: unknown): string {
  const source = error as { code?: unknown; name?: unknown; cause?: { code?: unknown } } | null;
  if (typeof source?.code === 'string') return source.code;
  if (typeof source?.cause?.code === 'string') return source.cause.code;
  return source?.name === 'HTTPParserError' ? NOT_HTTP_CODE : 'network_error';
}

/**
 * Wraps a transport failure. Only name, code and message of the original are kept: undici
 * errors can carry request options and headers, which hold the key.
 */
export function networkErrorFrom(
  error: unknown,
  endpoint: string,
  secret?: string | null,
  request?: RequestInfo,
  timeoutMs?: number,
): NetworkError {
  const source = error as { name?: unknown; message?: unknown } | null;
  const code = transportFailureCode(error);
  const rawMessage = typeof source?.message === 'string' && source.message !== '' ? source.message : String(code);
  const message = redact(describeTransportFailure(code, rawMessage, timeoutMs), secret);
  const safeCause = new Error(message);
  safeCause.name = typeof source?.name === 'string' ? source.name : 'Error';
  return new NetworkError(code, `${endpoint} failed: ${message}`, { cause: safeCause, request: request ?? null });
}

/**
 * A transport failure in words a user can act on: undici's "Headers Timeout Error" says
 * nothing of how long was waited, and OpenSSL's text (`80AC…:error:0A00010B:SSL
 * routines:ssl3_get_record:wrong version number:../deps/openssl/…`) is noise on a terminal.
 */
export function describeTransportFailure(code: string, message: string, timeoutMs: number | undefined): string {
  const seconds = timeoutMs === undefined ? null : formatSeconds(timeoutMs, { short: true });
  if (code === 'UND_ERR_HEADERS_TIMEOUT') return seconds === null ? 'no answer in time' : `no answer within ${seconds}`;
  if (code === 'UND_ERR_BODY_TIMEOUT')
    return seconds === null ? 'the answer stalled' : `the answer stalled for ${seconds}`;
  if (/SSL routines|openssl/i.test(message)) return `the TLS handshake failed (${code})`;
  return message;
}

/** ` (text/html: "<!DOCTYPE html>…")`: what came back instead, so a login page or a proxy shows. */
function bodyHint(facts: ResponseFacts): string {
  const type = facts.headers['content-type'];
  const contentType = (Array.isArray(type) ? type[0] : type)?.split(';')[0]?.trim();
  const start = facts.bodyText.replace(/\s+/g, ' ').trim().slice(0, 40);
  if (start === '') return contentType ? ` (${contentType}, empty)` : '';
  return ` (${contentType ?? 'no content type'}: ${JSON.stringify(start)}${facts.bodyText.length > 40 ? '…' : ''})`;
}
