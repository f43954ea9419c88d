import { describe, expect, it } from 'vitest';
import { IANAZone } from 'luxon';
import { createZoneClock } from '../../../src/service/catalog/index.js';
import { isValidZone, parseLongOffset, zoneOffsetReader } from '../../../src/service/catalog/zone-clock.js';

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

describe('zone offsets from Intl', () => {
  it('reads every kind of longOffset name: whole hours, minutes, seconds (local mean time), none', () => {
    expect(parseLongOffset('11/25/2026, GMT-05:00')).toBe(-300);
    expect(parseLongOffset('11/25/2026, GMT+05:45')).toBe(345);
    expect(parseLongOffset('1/1/1900, GMT-04:56:02')).toBeCloseTo(-(4 * 60 + 56 + 2 / 60), 9);
    expect(parseLongOffset('11/25/2026, GMT')).toBe(0);
    expect(() => parseLongOffset('11/25/2026, EST')).toThrow(/unexpected zone offset/);
  });

  it("gives luxon's offsets for every zone this runtime knows, across DST changes and history", () => {
    let compared = 0;
    const differing: string[] = [];
    for (const zone of Intl.supportedValuesOf('timeZone')) {
      const ours = zoneOffsetReader(zone);
      const theirs = IANAZone.create(zone);
      // Every 127 days and 7 hours from 1890 to 2039: the seasons drift through every month, at odd hours.
      for (let t = -2.5e12; t < 2.2e12; t += 127 * 86_400_000 + 7 * 3_600_000 + 12_345) {
        if (ours(t) !== theirs.offset(t)) differing.push(`${zone} at ${new Date(t).toISOString()}`);
        compared += 1;
      }
    }
    expect(differing.slice(0, 5)).toEqual([]);
    expect(compared).toBeGreaterThan(100_000);
  });

  it('knows a zone as Intl does, and refuses a made-up one', () => {
    expect(isValidZone('America/Sao_Paulo')).toBe(true);
    expect(isValidZone('Mars/Olympus_Mons')).toBe(false);
    expect(isValidZone('')).toBe(false);
  });
});
