import { describe, expect, it } from 'vitest';
import { createZoneClock } from '../../../src/service/catalog/index.js';

const MINUTE_MS = 60_000;
const HOUR_MS = 60 * MINUTE_MS;

/** The conversion rule stated directly on offsets, with no shortcut. */
function byRule(offsetAt: (instantMs: number) => number, wallClockMs: number): number {
  const before = offsetAt(wallClockMs - 14 * HOUR_MS);
  const after = offsetAt(wallClockMs + 12 * HOUR_MS);
  const withBefore = wallClockMs - before * MINUTE_MS;
  if (before === after) return withBefore;
  if (offsetAt(withBefore) === before) return withBefore;
  const withAfter = wallClockMs - after * MINUTE_MS;
  if (offsetAt(withAfter) === after) return withAfter;
  return withBefore;
}

describe('zone clock: the cached fast path changes no conversion', () => {
  it.each([
    'America/New_York',
    'Europe/London',
    'Australia/Lord_Howe',
    'Pacific/Chatham',
    'America/Santiago',
    'Asia/Kathmandu',
    'UTC',
  ])('%s, every 10 minutes of 2023-2024, in shuffled order', (zone) => {
    const rule = createZoneClock();
    const cached = createZoneClock();
    const convert = cached.converter(zone);
    const start = Date.UTC(2023, 0, 1);
    const steps = (2 * 366 * 24 * 60) / 10;
    // Visit times out of order so the caches fill in any order.
    for (let k = 0; k < steps; k += 1) {
      const wall = start + ((k * 7919) % steps) * 10 * MINUTE_MS;
      const expected = byRule((instant) => rule.offsetAt(zone, instant), wall);
      if (convert(wall) !== expected || cached.toInstant(zone, wall) !== expected) {
        expect({ zone, wall: new Date(wall).toISOString(), got: convert(wall) }).toEqual({
          zone,
          wall: new Date(wall).toISOString(),
          got: expected,
        });
      }
    }
  });
});
