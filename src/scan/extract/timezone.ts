import { createRequire } from 'node:module';
import { wallClockToInstant, type ZoneResolution } from '../../rules/wall-clock.js';
import type { Instant, LocalTime } from './dates.js';

// Loaded on first use (rule c only), so threads whose files all carry an offset never load it.
let luxon: typeof import('luxon') | null = null;
const ianaZone = (name: string): import('luxon').IANAZone =>
  (luxon ??= createRequire(import.meta.url)('luxon') as typeof import('luxon')).IANAZone.create(name);

/** Finds the IANA zone names at a point (geo-tz's `find`). */
export type ZoneFinder = (latitude: number, longitude: number) => string[];

/**
 * Converts a wall-clock reading in an IANA zone to a UTC instant by the shared rule
 * (src/rules/wall-clock.ts: a gap moves forward, an overlap takes the earlier instant).
 * Returns null for an unknown zone.
 */
export function zonedToUtc(
  local: LocalTime,
  zoneName: string,
): { instant: Instant; resolution: ZoneResolution } | null {
  const zone = ianaZone(zoneName);
  if (!zone.isValid) return null;
  const { utcMs, resolution } = wallClockToInstant(local.wallMs, (instantMs) => zone.offset(instantMs));
  return { instant: { utcMs, hasFraction: local.hasFraction }, resolution };
}

/**
 * Loads geo-tz's comprehensive data set ("all": offsets correct before 1970 too) on first
 * use, so workers that never need rule c never load it; the module system caches it.
 */
export function loadDefaultZoneFinder(): Promise<ZoneFinder> {
  return import('geo-tz/all').then((mod) => mod.find);
}
