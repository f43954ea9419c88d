import { describe, expect, it } from 'vitest';
import { whyNotExamined } from '../../src/sync/run.js';
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
    expect(tracker.observe(refused)).toEqual({ stop: true, reason: 'the host stopped answering: 3 connection failures in a row (last: ECONNREFUSED)' });
  });

  it.each([
    [{ status: null, code: 'ENOTFOUND' }, 'ENOTFOUND: waiting cannot heal it'],
    [{ status: null, code: 'CERT_HAS_EXPIRED' }, 'CERT_HAS_EXPIRED: waiting cannot heal it'],
    [{ status: 401, code: 'invalid_api_key' }, 'the service refused the key (401 invalid_api_key)'],
  ])('stops at once on %j', (attempt, reason) => {
    expect(createOutageTracker(5).observe(attempt)).toEqual({ stop: true, reason });
  });

  it('ignores what is not a connection failure (a timeout of the body, a contract violation)', () => {
    const tracker = createOutageTracker(1);
    expect(tracker.observe({ status: null, code: 'UND_ERR_BODY_TIMEOUT' }).stop).toBe(false);
    expect(tracker.observe({ status: 200, code: 'contract_violation' }).stop).toBe(false);
  });
});

describe('whether a pass examined the library', () => {
  it.each([
    [10, 0, false, null],
    [0, 0, true, null],
    [0, 0, false, 'no media file was found under the given folders (an unmounted drive or share?); --allow-empty syncs a library that is really empty'],
    [10, 1, false, '1 folder or file could not be read'],
    [10, 3, true, '3 folders or files could not be read'],
  ])('%i files, %i unreadable, allowEmpty %s', (files, unreadable, allowEmpty, expected) => {
    expect(whyNotExamined(files, unreadable, allowEmpty)).toBe(expected);
  });
});
