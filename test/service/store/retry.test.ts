import { describe, expect, it } from 'vitest';
import { ServiceError } from '../../../src/service/service-error.js';
import { storeRetry, withRetry } from '../../../src/service/store/retry.js';

/** A fake clock that advances only when the retry sleeps. */
function fakeTime() {
  let now = 0;
  const pauses: number[] = [];
  return {
    now: () => now,
    sleep: async (ms: number) => {
      pauses.push(ms);
      now += ms;
    },
    pauses,
  };
}
const busy = Object.assign(new Error('database is locked'), { code: 'SQLITE_BUSY' });
const isBusy = (error: unknown): boolean => error === busy;

describe('store retry', () => {
  it('retries a transient failure with growing, capped pauses and returns the first success', async () => {
    const time = fakeTime();
    let calls = 0;
    const result = await withRetry(
      () => {
        calls += 1;
        if (calls < 6) throw busy;
        return 'done';
      },
      isBusy,
      storeRetry({ now: time.now, sleep: time.sleep, baseDelayMs: 10, maxDelayMs: 40, budgetMs: 10_000 }),
    );
    expect(result).toBe('done');
    expect(time.pauses).toHaveLength(5);
    // Jitter keeps each pause within [half, full] of min(cap, floor * 2^n).
    const full = [10, 20, 40, 40, 40];
    time.pauses.forEach((pause, n) => {
      expect(pause).toBeGreaterThanOrEqual(full[n]! / 2);
      expect(pause).toBeLessThanOrEqual(full[n]!);
    });
  });

  it('answers 503 service_unavailable with Retry-After once the budget is spent', async () => {
    const time = fakeTime();
    const failure = await withRetry(
      () => {
        throw busy;
      },
      isBusy,
      storeRetry({ now: time.now, sleep: time.sleep, budgetMs: 500, retryAfterSeconds: 2 }),
    ).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ServiceError);
    expect(failure).toMatchObject({
      code: 'service_unavailable',
      status: 503,
      headers: { 'retry-after': '2' },
      cause: busy,
    });
    expect(time.now()).toBe(500);
  });

  it('lets any other failure through at once', async () => {
    const time = fakeTime();
    const other = new Error('constraint');
    await expect(
      withRetry(
        () => {
          throw other;
        },
        isBusy,
        storeRetry({ now: time.now, sleep: time.sleep }),
      ),
    ).rejects.toBe(other);
    expect(time.pauses).toEqual([]);
  });
});
