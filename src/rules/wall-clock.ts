/**
 * Local wall-clock time in an IANA zone to a UTC instant: the one rule shared by the scan
 * (EXIF times without an offset) and the embedded service (catalog start times).
 */

const MINUTE_MS = 60_000;
/** Offsets on Earth lie within [-12 h, +14 h]: a wall-clock time maps into this span. */
export const EARLIEST_SHIFT_MS = 14 * 3_600_000;
export const LATEST_SHIFT_MS = 12 * 3_600_000;

/** A zone's offset, in minutes east of UTC, at an instant (ms since the epoch). */
export type OffsetAt = (instantMs: number) => number;

/** How a wall-clock reading was placed on the time line. */
export type ZoneResolution = 'unique' | 'gap' | 'overlap';

/** The instant a wall-clock reading denotes, and how it was found. */
export interface ZonedInstant {
  utcMs: number;
  resolution: ZoneResolution;
}

/**
 * Converts a wall-clock reading (its fields read as if UTC, in ms) to the instant a clock on
 * that wall showed it, given the zone's offsets:
 * - a reading that exists once maps to that instant;
 * - a reading inside a spring-forward gap (it never showed on the clock) is shifted forward
 *   by the gap, using the offset in force before the change (02:30 -> 03:30);
 * - a reading inside a fall-back overlap (it showed twice) takes the earlier instant.
 * These are the "compatible" disambiguation of the Temporal proposal and of RFC 5545.
 */
export function wallClockToInstant(wallMs: number, offsetAt: OffsetAt): ZonedInstant {
  // The offsets in force at both ends of the span bracket every instant the reading can
  // denote; equal ends mean no change nearby (two changes within a day do not occur).
  const before = offsetAt(wallMs - EARLIEST_SHIFT_MS) * MINUTE_MS;
  const after = offsetAt(wallMs + LATEST_SHIFT_MS) * MINUTE_MS;
  const withBefore = wallMs - before;
  if (before === after) return { utcMs: withBefore, resolution: 'unique' };
  const withAfter = wallMs - after;
  const beforeHolds = offsetAt(withBefore) * MINUTE_MS === before;
  const afterHolds = offsetAt(withAfter) * MINUTE_MS === after;
  if (beforeHolds && afterHolds) return { utcMs: Math.min(withBefore, withAfter), resolution: 'overlap' };
  if (beforeHolds) return { utcMs: withBefore, resolution: 'unique' };
  if (afterHolds) return { utcMs: withAfter, resolution: 'unique' };
  return { utcMs: withBefore, resolution: 'gap' };
}
