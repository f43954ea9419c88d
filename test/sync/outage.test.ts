import { describe, expect, it } from 'vitest';
import { whyNotExamined } from '../../src/sync/examined.js';
import { createOutageTracker, type AttemptOutcome } from '../../src/sync/outage.js';

const refused: AttemptOutcome = { status: null, code: 'ECONNREFUSED' };
const ok: AttemptOutcome = { status: 200, code: null };

describe('the outage tracker', () => {
  it('stops after N consecutive connection failures, and an answer resets the count', () => {
    const tracker = createOutageTracker(3);
    expect(tracker.observe(refused).stop).toBe(false);
    expect(tracker.observe(refused).stop).toBe(false);
    expect(tracker.observe(ok).stop).toBe(false);
    expect(tracker.observe(refused).stop).toBe(false);
    expect(tracker.observe({ status: 500, code: 'internal_error' }).stop).toBe(false);
    expect(tracker.observe(refused).stop).toBe(false);
    expect(tracker.observe({ status: null, code: 'ECONNRESET' }).stop).toBe(false);
    expect(tracker.observe(refused)).toEqual({
      stop: true,
      reason: 'the host stopped answering: 3 connection failures in a row (last: ECONNREFUSED)',
    });
  });

  it.each([
    [{ status: null, code: 'ENOTFOUND' }, 'ENOTFOUND: waiting cannot heal it'],
    [{ status: null, code: 'CERT_HAS_EXPIRED' }, 'CERT_HAS_EXPIRED: waiting cannot heal it'],
    [{ status: 401, code: 'invalid_api_key' }, 'the service refused the key (401 invalid_api_key)'],
  ])('stops at once on %j', (attempt, reason) => {
    expect(createOutageTracker(5).observe(attempt)).toEqual({ stop: true, reason });
  });

  it.each(['ENETDOWN', 'ECONNABORTED', 'EHOSTUNREACH', 'UND_ERR_SOCKET'])(
    'counts %s (the network or the connection went) toward the limit',
    (code) => {
      const tracker = createOutageTracker(2);
      expect(tracker.observe({ status: null, code }).stop).toBe(false);
      expect(tracker.observe({ status: null, code })).toEqual({
        stop: true,
        reason: `the host stopped answering: 2 connection failures in a row (last: ${code})`,
      });
    },
  );

  it('ignores what is not a connection failure (a contract violation, an unknown code)', () => {
    const tracker = createOutageTracker(1);
    expect(tracker.observe({ status: 200, code: 'contract_violation' }).stop).toBe(false);
    expect(tracker.observe({ status: null, code: 'network_error' }).stop).toBe(false);
  });

  it.each(['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'UND_ERR_CONNECT_TIMEOUT'])(
    'counts a timeout (%s) toward the limit',
    (code) => {
      const tracker = createOutageTracker(2);
      // First attempts of two requests in flight at once.
      expect(tracker.observe({ status: null, code, attempt: 1 }).stop).toBe(false);
      expect(tracker.observe({ status: null, code, attempt: 1 }).stop).toBe(true);
    },
  );

  it('stops when one request met silence twice in a row, well before the limit, and says what to raise', () => {
    const tracker = createOutageTracker(5);
    const silent = {
      status: null,
      code: 'UND_ERR_HEADERS_TIMEOUT',
      durationMs: 30_004,
      method: 'GET',
      url: 'http://127.0.0.1:9/v1/health',
    };
    expect(tracker.observe({ ...silent, attempt: 1 }).stop).toBe(false);
    expect(tracker.observe({ ...silent, attempt: 2 })).toEqual({
      stop: true,
      reason:
        'the host stopped answering: no answer within 30 s, 2 times in a row (last: GET ' +
        'http://127.0.0.1:9/v1/health, UND_ERR_HEADERS_TIMEOUT); ' +
        'a hung server or proxy? if it is only slow, raise --timeout',
    });
  });

  it('does not stop for a second attempt that timed out after an answer (a slow moment, not a silent host)', () => {
    const tracker = createOutageTracker(5);
    expect(tracker.observe({ status: 503, code: 'service_unavailable', attempt: 1 }).stop).toBe(false);
    expect(tracker.observe({ status: null, code: 'UND_ERR_HEADERS_TIMEOUT', attempt: 2 }).stop).toBe(false);
    // Another request answered in between: the streak starts again.
    expect(tracker.observe(ok).stop).toBe(false);
    expect(tracker.observe({ status: null, code: 'UND_ERR_HEADERS_TIMEOUT', attempt: 1 }).stop).toBe(false);
  });
});

describe('whether a pass examined the library', () => {
  it.each([
    [10, 0, false, null],
    [0, 0, true, null],
    [
      0,
      0,
      false,
      'no media file was found under the given folders (an unmounted drive or share?); --allow-empty syncs a library ' +
        'that is really empty',
    ],
    [10, 1, false, '1 folder or file could not be read'],
    [10, 3, true, '3 folders or files could not be read'],
  ])('%i files, %i unreadable, allowEmpty %s', (files, unreadable, allowEmpty, expected) => {
    expect(whyNotExamined(files, unreadable, allowEmpty)).toBe(expected);
  });
});
