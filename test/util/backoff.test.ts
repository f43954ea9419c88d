import { describe, expect, it } from 'vitest';
import { backoffCeiling, backoffDelay, LOCK_RETRY, REQUEST_RETRY, resolvePolicy } from '../../src/util/backoff.js';

const top = (): number => 0.999999;
const zero = (): number => 0;

describe('the one backoff', () => {
  it('request retry: full jitter under a doubling ceiling from 0.5 s to 30 s, never below 0.1 s', () => {
    expect([1, 2, 3, 7, 8].map((a) => backoffDelay(a, REQUEST_RETRY, top))).toEqual([499, 999, 1999, 29999, 29999]);
    expect(backoffDelay(3, REQUEST_RETRY, zero)).toBe(100);
  });

  it('lock retry: between half the ceiling and the ceiling, 5 ms doubling to 250 ms', () => {
    expect([1, 2, 3, 6, 7, 9].map((a) => backoffDelay(a, LOCK_RETRY, zero))).toEqual([2.5, 5, 10, 80, 125, 125]);
    expect(backoffDelay(7, LOCK_RETRY, top)).toBeCloseTo(250, 3);
  });

  it('the ceiling survives a very long run: no Infinity, and no NaN from a base of 0', () => {
    expect(backoffCeiling(2000, { baseDelayMs: 250, maxDelayMs: 4000 })).toBe(4000);
    expect(backoffCeiling(2000, { baseDelayMs: 0, maxDelayMs: 4000 })).toBe(0);
    expect(backoffDelay(2000, { ...LOCK_RETRY, baseDelayMs: 0 }, top)).toBe(0);
  });

  it('an override replaces one member; an undefined one keeps the policy', () => {
    const policy = resolvePolicy(LOCK_RETRY, { budgetMs: 50, maxDelayMs: undefined });
    expect(policy).toEqual({ ...LOCK_RETRY, budgetMs: 50 });
    expect(LOCK_RETRY.budgetMs).toBe(2000);
  });
});
