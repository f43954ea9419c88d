import { createRequire } from 'node:module';
import type { Instant, LocalTime } from './dates.js';

// Loaded on first use (rule c only), so threads whose files all carry an offset never load it.
let luxon: typeof import('luxon') | null = null;
const ianaZone = (name: string): import('luxon').IANAZone =>
  (luxon ??= createRequire(import.meta.url)('luxon') as typeof import('luxon')).IANAZone.create(name);

/** Finds the IANA zone names at a point (geo-tz's `find`). */
export type ZoneFinder = (latitude: number, longitude: number) => string[];

/** How a local reading was placed on the time line. */
export type ZoneResolution = 'unique' | 'gap' | 'overlap';

const DAY_MS = 86_400_000;

/**
 * Converts a wall-clock reading in an IANA zone to a UTC instant, the way a clock on that
 * wall would have read it:
 * - a reading that exists once maps to that instant;
 * - a reading inside a spring-forward gap (it never showed on the clock) is shifted
 *   forward by the gap, using the offset in force before the change (02:30 -> 03:30);
 * - a reading inside a fall-back overlap (it showed twice) takes the first occurrence,
 *   the earlier instant, still on the pre-change offset.
 * These are the rules of the Temporal proposal's "compatible" disambiguation and of
 * RFC 5545. Returns null for an unknown zone.
 */
export function zonedToUtc(local: LocalTime, zoneName: string): { instant: Instant; resolution: ZoneResolution } | null {
  const zone = ianaZone(zoneName);
  if (!zone.isValid) return null;
  const offsetAt = (utcMs: number): number => zone.offset(utcMs) * 60_000;
  // Offsets in force a day either side bracket any single transition near the reading.
  const before = offsetAt(local.wallMs - DAY_MS);
  const after = offsetAt(local.wallMs + DAY_MS);
  const candidates = [...new Set([before, after])]
    .map((offset) => local.wallMs - offset)
    .filter((utcMs) => local.wallMs - offsetAt(utcMs) === utcMs)
    .sort((a, b) => a - b);
  const hasFraction = local.hasFraction;
  if (candidates.length === 0) {
    // A further check of the reading's own offset covers zones whose offset changed twice within the day.
    const own = local.wallMs - offsetAt(local.wallMs);
    if (local.wallMs - offsetAt(own) === own) return { instant: { utcMs: own, hasFraction }, resolution: 'unique' };
    return { instant: { utcMs: local.wallMs - before, hasFraction }, resolution: 'gap' };
  }
  return { instant: { utcMs: candidates[0]!, hasFraction }, resolution: candidates.length > 1 ? 'overlap' : 'unique' };
}

/**
 * Loads geo-tz's comprehensive data set ("all": offsets correct before 1970 too) on first
 * use, so workers that never need rule c never load it; the module system caches it.
 */
export function loadDefaultZoneFinder(): Promise<ZoneFinder> {
  return import('geo-tz/all').then((mod) => mod.find);
}
