import { IANAZone } from 'luxon';
import { describe, expect, it } from 'vitest';
import { wallClockToInstant } from '../../src/rules/wall-clock.js';
import { createZoneClock } from '../../src/service/catalog/zone-clock.js';

const wall = (iso: string): number => Date.parse(`${iso}Z`);
const offsetsOf = (zone: string) => {
  const z = IANAZone.create(zone);
  return (instantMs: number): number => z.offset(instantMs);
};

describe('wallClockToInstant', () => {
  it.each([
    // zone, wall-clock reading, expected instant, resolution
    ['Europe/Berlin', '2024-07-12T20:00:00', '2024-07-12T18:00:00Z', 'unique'],
    ['Europe/Berlin', '2024-01-12T20:00:00', '2024-01-12T19:00:00Z', 'unique'],
    // spring forward 02:00 -> 03:00: 02:30 never showed, moves forward by the gap
    ['Europe/Berlin', '2024-03-31T02:30:00', '2024-03-31T01:30:00Z', 'gap'],
    // fall back 03:00 -> 02:00: 02:30 showed twice, the earlier instant wins
    ['Europe/Berlin', '2024-10-27T02:30:00', '2024-10-27T00:30:00Z', 'overlap'],
    // the minutes just outside the transitions are unique
    ['Europe/Berlin', '2024-03-31T01:59:00', '2024-03-31T00:59:00Z', 'unique'],
    ['Europe/Berlin', '2024-03-31T03:00:00', '2024-03-31T01:00:00Z', 'unique'],
    ['Europe/Berlin', '2024-10-27T03:00:00', '2024-10-27T02:00:00Z', 'unique'],
    ['America/New_York', '2024-03-10T02:15:00', '2024-03-10T07:15:00Z', 'gap'],
    ['America/New_York', '2024-11-03T01:30:00', '2024-11-03T05:30:00Z', 'overlap'],
    // southern hemisphere: DST in January, the gap in October
    ['Australia/Sydney', '2024-01-20T21:00:00', '2024-01-20T10:00:00Z', 'unique'],
    ['Australia/Sydney', '2024-10-06T02:30:00', '2024-10-05T16:30:00Z', 'gap'],
    ['Australia/Sydney', '2024-04-07T02:30:00', '2024-04-06T15:30:00Z', 'overlap'],
    // half-hour zone, and a zone whose DST moves the clock by 30 minutes
    ['Asia/Kolkata', '2024-07-12T20:00:00', '2024-07-12T14:30:00Z', 'unique'],
    ['Australia/Lord_Howe', '2024-10-06T02:15:00', '2024-10-05T15:45:00Z', 'gap'],
    ['Australia/Lord_Howe', '2024-04-07T01:45:00', '2024-04-06T14:45:00Z', 'overlap'],
    // the date line: Samoa skipped 30 December 2011 entirely: noon moves a whole day forward
    ['Pacific/Apia', '2011-12-30T12:00:00', '2011-12-30T22:00:00Z', 'gap'],
    ['UTC', '2024-07-12T20:00:00', '2024-07-12T20:00:00Z', 'unique'],
  ])('%s %s -> %s (%s)', (zone, reading, expected, resolution) => {
    expect(wallClockToInstant(wall(reading), offsetsOf(zone))).toEqual({ utcMs: Date.parse(expected), resolution });
  });

  it('agrees with the service zone clock, which adds a cache in front of it, hour by hour through 2024', () => {
    const clock = createZoneClock();
    for (const zone of ['Europe/Berlin', 'America/Santiago', 'Australia/Lord_Howe', 'Asia/Tehran']) {
      const offsetAt = offsetsOf(zone);
      for (let ms = wall('2024-01-01T00:00:00'); ms < wall('2025-01-01T00:00:00'); ms += 3_600_000 + 60_000 * 15) {
        expect(clock.toInstant(zone, ms)).toBe(wallClockToInstant(ms, offsetAt).utcMs);
      }
    }
  });
});
