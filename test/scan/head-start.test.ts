import { describe, expect, it } from 'vitest';
import { startAhead } from '../../src/scan/head-start.js';

const turns = async (n: number): Promise<void> => {
  for (let i = 0; i < n; i++) await new Promise((resolve) => setImmediate(resolve));
};

function counting(
  total: number,
  fail?: number,
): { source: AsyncGenerator<number>; pulled: () => number; closed: () => boolean } {
  let pulled = 0;
  let closed = false;
  const source = (async function* () {
    try {
      for (let i = 0; i < total; i++) {
        if (i === fail) throw new Error(`failed at ${i}`);
        pulled += 1;
        yield i;
      }
    } finally {
      closed = true;
    }
  })();
  return { source, pulled: () => pulled, closed: () => closed };
}

describe('startAhead', () => {
  it('pulls up to its limit before anyone iterates, then passes everything on in order', async () => {
    const s = counting(10);
    const ahead = startAhead(s.source, { limit: 3 });
    await turns(5);
    expect(s.pulled()).toBe(3); // held, and no more until one is taken
    const seen: number[] = [];
    for await (const n of ahead) seen.push(n);
    expect(seen).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(s.closed()).toBe(true);
  });

  it('close() ends a source nobody consumed', async () => {
    const s = counting(10);
    const ahead = startAhead(s.source, { limit: 2 });
    await turns(3);
    await ahead.close();
    expect(s.closed()).toBe(true);
    expect(s.pulled()).toBeLessThan(10);
  });

  it('a consumer that leaves early closes the source; an error reaches the consumer', async () => {
    const s = counting(10);
    for await (const n of startAhead(s.source, { limit: 4 })) if (n === 1) break;
    expect(s.closed()).toBe(true);

    const failing = counting(10, 2);
    const seen: number[] = [];
    await expect(
      (async () => {
        for await (const n of startAhead(failing.source, { limit: 4 })) seen.push(n);
      })(),
    ).rejects.toThrow('failed at 2');
    expect(seen).toEqual([0, 1]);
  });
});
