import type { Stats } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createBatchStat } from '../../src/scan/stat-batch.js';

describe('createBatchStat', () => {
  it('stats in turn while that is fast, concurrently once it is slow, and tries in turn again later', async () => {
    const calls: string[] = [];
    let clock = 0;
    let syncCost = 0.005; // ms per stat: a cached local disk
    const fake = { size: 1 } as Stats;
    const batchStat = createBatchStat({
      stat: async (file) => {
        calls.push(`async ${file}`);
        return fake;
      },
      statSync: (file) => {
        calls.push(`sync ${file}`);
        clock += syncCost;
        if (file === 'gone') throw Object.assign(new Error('ENOENT'), { code: 'ENOENT' });
        return fake;
      },
      now: () => clock,
    });
    expect(await batchStat(['a', 'gone'])).toEqual([
      { stats: fake },
      { error: expect.objectContaining({ code: 'ENOENT' }) },
    ]);
    expect(calls).toEqual(['sync a', 'sync gone']);

    syncCost = 2; // a network share: 2 ms a stat
    await batchStat(['b']);
    calls.length = 0;
    for (let i = 0; i < 63; i++) await batchStat([`c${i}`]);
    expect(calls.every((call) => call.startsWith('async'))).toBe(true);
    calls.length = 0;
    await batchStat(['d']);
    expect(calls).toEqual(['sync d']); // probed again; still slow, so back to the pool
    await batchStat(['e']);
    expect(calls).toEqual(['sync d', 'async e']);
  });

  it('always uses the asynchronous stat when no synchronous one is given', async () => {
    const batchStat = createBatchStat({ stat: async () => ({ size: 2 }) as Stats });
    expect(await batchStat(['x'])).toEqual([{ stats: { size: 2 } }]);
  });
});
