import type { LocalTime } from './dates.js';
import { localFromFields } from './dates.js';
import { cleanText } from './text.js';

const QUARTER_HOUR_MS = 15 * 60_000;
const MAX_OFFSET_MS = 14 * 3_600_000;

/**
 * The UTC instant of EXIF GPSDateStamp ("2024:07:13") + GPSTimeStamp ([h, m, s] rationals
 * or "hh:mm:ss"), or null when either is missing or malformed. A date stamp holding more
 * than a date ("2024:07:13 00:15:29", seen on real files) is malformed: whoever wrote it
 * did not follow the GPS clock's format, so it is no evidence of the GPS clock.
 */
export function gpsUtcMs(dateStamp: unknown, timeStamp: unknown): number | null {
  if (typeof dateStamp !== 'string') return null;
  const d = /^(\d{4})[:-](\d{2})[:-](\d{2})$/.exec(cleanText(dateStamp) ?? '');
  if (!d) return null;
  let parts: number[] | null = null;
  if (Array.isArray(timeStamp) && timeStamp.length === 3) parts = timeStamp.map(Number);
  else if (typeof timeStamp === 'string') {
    const t = /^\s*(\d{1,2}):(\d{1,2}):(\d{1,2}(?:\.\d+)?)\s*$/.exec(timeStamp);
    if (t) parts = [Number(t[1]), Number(t[2]), Number(t[3])];
  }
  if (!parts?.every((n) => Number.isFinite(n) && n >= 0)) return null;
  const [h, m, s] = parts as [number, number, number];
  if (h > 23 || m > 59 || s >= 61) return null;
  const whole = Math.floor(s);
  const base = localFromFields(Number(d[1]), Number(d[2]), Number(d[3]), h, m, Math.min(whole, 59), null);
  if (!base) return null;
  return base.wallMs + Math.round((s - whole) * 1000);
}

/**
 * Rule b: the offset of a local reading inferred from the GPS clock (UTC), rounded to the
 * nearest 15 minutes (a fix is taken near, not at, the shutter) and accepted only within
 * ±14 h. Returns minutes east of UTC, or null.
 */
export function offsetFromGpsTime(local: LocalTime, gpsMs: number): number | null {
  const diff = local.wallMs - gpsMs;
  const rounded = Math.round(diff / QUARTER_HOUR_MS) * QUARTER_HOUR_MS;
  if (!Number.isFinite(rounded) || Math.abs(rounded) > MAX_OFFSET_MS) return null;
  return rounded / 60_000 + 0; // + 0 turns -0 into 0
}
