import { describe, expect, it } from 'vitest';
import {
  backoffDelay,
  decideRetry,
  DEFAULT_RETRY_POLICY,
  parseRetryAfter,
  resolveRetryPolicy,
} from '../../src/client/retry.js';
import { ApiError, ContractViolationError, InterruptedError, NetworkError } from '../../src/errors.js';

const policy = resolveRetryPolicy({});
const half = (): number => 0.5;
const top = (): number => 0.999999;
const zero = (): number => 0;

describe('decideRetry', () => {
  it.each([
    [
      '429 with Retry-After waits that long',
      1,
      new ApiError(429, 'rate_limited', 'x', { retryAfterSeconds: 3 }),
      half,
      { retry: true, delayMs: 3000 },
    ],
    [
      '429 with Retry-After 0 retries at once',
      1,
      new ApiError(429, 'rate_limited', 'x', { retryAfterSeconds: 0 }),
      half,
      { retry: true, delayMs: 0 },
    ],
    [
      '429 with a huge Retry-After is capped at 5 min',
      1,
      new ApiError(429, 'rate_limited', 'x', { retryAfterSeconds: 86_400 }),
      half,
      { retry: true, delayMs: 300_000 },
    ],
    [
      '429 without Retry-After backs off',
      1,
      new ApiError(429, 'rate_limited', 'x'),
      half,
      { retry: true, delayMs: 250 },
    ],
    [
      '500 first retry: jitter over 500 ms',
      1,
      new ApiError(500, 'internal_error', 'x'),
      half,
      { retry: true, delayMs: 250 },
    ],
    ['503 third retry: jitter over 2 s', 3, new ApiError(503, 'http_503', 'x'), half, { retry: true, delayMs: 1000 }],
    ['502 late retry is capped at 30 s', 5, new ApiError(502, 'http_502', 'x'), top, { retry: true, delayMs: 7999 }],
    [
      'jitter of 0 is raised to the floor',
      2,
      new ApiError(500, 'internal_error', 'x'),
      zero,
      { retry: true, delayMs: 100 },
    ],
    [
      'unknown code on a 5xx is handled by status',
      1,
      new ApiError(504, 'gateway_melted', 'x'),
      half,
      { retry: true, delayMs: 250 },
    ],
    ['network error backs off', 2, new NetworkError('ECONNRESET', 'reset'), half, { retry: true, delayMs: 500 }],
    ['timeout backs off', 1, new NetworkError('UND_ERR_HEADERS_TIMEOUT', 'slow'), half, { retry: true, delayMs: 250 }],
    [
      'a refused connection backs off (the host may be restarting)',
      1,
      new NetworkError('ECONNREFUSED', 'x'),
      half,
      { retry: true, delayMs: 250 },
    ],
    [
      'a resolver that did not answer backs off',
      1,
      new NetworkError('EAI_AGAIN', 'x'),
      half,
      { retry: true, delayMs: 250 },
    ],
    ['a host name that does not exist is not retried', 1, new NetworkError('ENOTFOUND', 'x'), half, { retry: false }],
    ['a refused certificate is not retried', 1, new NetworkError('CERT_HAS_EXPIRED', 'x'), half, { retry: false }],
    [
      'a certificate for another host is not retried',
      1,
      new NetworkError('ERR_TLS_CERT_ALTNAME_INVALID', 'x'),
      half,
      { retry: false },
    ],
    ['400 never retried', 1, new ApiError(400, 'invalid_request', 'x'), half, { retry: false }],
    ['401 never retried', 1, new ApiError(401, 'invalid_api_key', 'x'), half, { retry: false }],
    ['404 never retried', 1, new ApiError(404, 'user_not_found', 'x'), half, { retry: false }],
    ['413 never retried', 1, new ApiError(413, 'invalid_batch_size', 'x'), half, { retry: false }],
    ['unknown 4xx code never retried', 1, new ApiError(418, 'teapot', 'x'), half, { retry: false }],
    ['contract violation never retried', 1, new ContractViolationError('bad body'), half, { retry: false }],
    ['interruption never retried', 1, new InterruptedError(), half, { retry: false }],
    ['plain error never retried', 1, new Error('bug'), half, { retry: false }],
    ['attempts are bounded (500)', 6, new ApiError(500, 'internal_error', 'x'), half, { retry: false }],
    [
      'attempts are bounded (429)',
      6,
      new ApiError(429, 'rate_limited', 'x', { retryAfterSeconds: 1 }),
      half,
      { retry: false },
    ],
    ['attempts are bounded (network)', 6, new NetworkError('ECONNREFUSED', 'x'), half, { retry: false }],
  ])('%s', (_name, attempt, error, random, expected) => {
    expect(decideRetry({ attempt, error, policy, random })).toEqual(expected);
  });

  it('tries a timeout twice at most, counting only the attempts that timed out', () => {
    const silent = new NetworkError('UND_ERR_HEADERS_TIMEOUT', 'no answer');
    expect(decideRetry({ attempt: 1, error: silent, policy, random: half, timeouts: 1 }).retry).toBe(true);
    expect(decideRetry({ attempt: 2, error: silent, policy, random: half, timeouts: 2 })).toEqual({ retry: false });
    // A 503 first, then one timeout: the timeout is still tried once more.
    expect(decideRetry({ attempt: 2, error: silent, policy, random: half, timeouts: 1 }).retry).toBe(true);
    for (const code of ['UND_ERR_BODY_TIMEOUT', 'UND_ERR_CONNECT_TIMEOUT', 'ETIMEDOUT']) {
      expect(decideRetry({ attempt: 2, error: new NetworkError(code, 'x'), policy, random: half })).toEqual({
        retry: false,
      });
    }
    // Other connection failures keep the full bound.
    expect(decideRetry({ attempt: 2, error: new NetworkError('ECONNRESET', 'x'), policy, random: half }).retry).toBe(
      true,
    );
  });

  it('never retries the wrong scheme', () => {
    for (const code of ['server_speaks_plain_http', 'server_speaks_tls']) {
      expect(decideRetry({ attempt: 1, error: new NetworkError(code, 'x'), policy, random: half })).toEqual({
        retry: false,
      });
    }
  });

  it('honours a custom bound and cap', () => {
    const custom = resolveRetryPolicy({ maxAttempts: 2, maxDelayMs: 1000 });
    const error = new ApiError(500, 'internal_error', 'x');
    expect(decideRetry({ attempt: 1, error, policy: custom, random: top })).toEqual({ retry: true, delayMs: 499 });
    expect(decideRetry({ attempt: 2, error, policy: custom, random: top })).toEqual({ retry: false });
  });
});

describe('backoffDelay', () => {
  it('grows exponentially then stops at the cap', () => {
    const ceilings = [1, 2, 3, 4, 5, 6, 7, 8].map((a) => backoffDelay(a, DEFAULT_RETRY_POLICY, top));
    expect(ceilings).toEqual([499, 999, 1999, 3999, 7999, 15999, 29999, 29999]);
  });
});

describe('parseRetryAfter', () => {
  it.each([
    ['seconds', '7', 7],
    ['padded seconds', ' 2 ', 2],
    ['absent', undefined, null],
    ['garbage', 'soon', null],
    ['negative', '-3', null],
    ['an HTTP date 10 s ahead', new Date(1_000_000 + 10_000).toUTCString(), 10],
    ['an HTTP date in the past', new Date(0).toUTCString(), 0],
  ])('%s', (_name, value, expected) => {
    expect(parseRetryAfter(value, 1_000_000)).toBe(expected);
  });
});
