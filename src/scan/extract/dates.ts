/**
 * Pure parsing of the date forms found in EXIF, XMP, QuickTime and Takeout metadata.
 * A "local" time is a wall-clock reading with no zone, kept as the epoch milliseconds it
 * would have if it were UTC (so arithmetic on it is plain subtraction).
 */

import { cleanText } from './text.js';

/** A wall-clock reading: `wallMs` is Date.UTC of its fields. */
export interface LocalTime {
  wallMs: number;
  /** true when the reading had a fractional second. */
  hasFraction: boolean;
}

/** A true instant, with whether it had a fractional second (drives the output format). */
export interface Instant {
  utcMs: number;
  hasFraction: boolean;
}

/** A local reading and the offset written beside it, if any (minutes east of UTC). */
export interface ParsedDate {
  local: LocalTime;
  offsetMinutes: number | null;
}

const MAX_OFFSET_MINUTES = 14 * 60;
const MIN_YEAR = 1800;
const MAX_YEAR = 9999;

// YYYY:MM:DD or YYYY-MM-DD, a time (T or space; a date alone is no capture time), fraction, Z or offset.
const DATE_RE =
  /^(\d{4})[:-](\d{2})[:-](\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d+))?)?)\s*(Z|[+-]\d{2}(?::?\d{2})?)?$/i;

/**
 * Parses an EXIF/XMP/ISO date. Placeholders ("0000:00:00 00:00:00", blank, all spaces or
 * colons), impossible fields and years outside 1800-9999 give null.
 */
export function parseDateText(text: unknown): ParsedDate | null {
  if (typeof text !== 'string') return null;
  const trimmed = cleanText(text) ?? '';
  const m = DATE_RE.exec(trimmed);
  if (!m) return null;
  const [, y, mo, d, h = '00', mi = '00', s = '00', frac, zone] = m;
  const local = localFromFields(Number(y), Number(mo), Number(d), Number(h), Number(mi), Number(s), frac ?? null);
  if (!local) return null;
  let offsetMinutes: number | null = null;
  if (zone !== undefined) {
    offsetMinutes = parseOffset(zone);
    if (offsetMinutes === null) return null;
  }
  return { local, offsetMinutes };
}

/** Builds a LocalTime from fields, rejecting impossible values. `fraction` is the digits after the point. */
export function localFromFields(
  year: number,
  month: number,
  day: number,
  hour: number,
  minute: number,
  second: number,
  fraction: string | null,
): LocalTime | null {
  if (![year, month, day, hour, minute, second].every(Number.isInteger)) return null;
  if (year < MIN_YEAR || year > MAX_YEAR || month < 1 || month > 12 || day < 1) return null;
  if (hour > 23 || minute > 59 || second > 60) return null;
  const daysInMonth = new Date(Date.UTC(year, month, 0)).getUTCDate();
  if (day > daysInMonth) return null;
  const millis = fractionToMillis(fraction);
  const wallMs = Date.UTC(year, month - 1, day, hour, minute, Math.min(second, 59)) + millis;
  return { wallMs, hasFraction: millis !== 0 };
}

/** "123" -> 123 ms, "5" -> 500 ms, "0504" -> 50 ms (truncated, not rounded). Non-digits give 0. */
export function fractionToMillis(fraction: string | null | undefined): number {
  if (fraction === null || fraction === undefined) return 0;
  const digits = cleanText(fraction) ?? '';
  if (!/^\d+$/.test(digits)) return 0;
  return Number(digits.slice(0, 3).padEnd(3, '0'));
}

/**
 * Parses an offset ("+09:00", "-0430", "+05", "Z") to minutes east of UTC. Anything
 * beyond ±14 h, malformed, blank or a placeholder ("   :  ") gives null.
 */
export function parseOffset(text: unknown): number | null {
  if (typeof text !== 'string') return null;
  const t = cleanText(text) ?? '';
  if (/^z$/i.test(t)) return 0;
  const m = /^([+-])(\d{2})(?::?(\d{2}))?$/.exec(t);
  if (!m) return null;
  const hours = Number(m[2]);
  const minutes = Number(m[3] ?? '0');
  if (minutes > 59) return null;
  const total = (m[1] === '-' ? -1 : 1) * (hours * 60 + minutes);
  return Math.abs(total) > MAX_OFFSET_MINUTES ? null : total;
}

/** The instant a local reading denotes at a fixed offset. */
export function instantAtOffset(local: LocalTime, offsetMinutes: number): Instant {
  return { utcMs: local.wallMs - offsetMinutes * 60_000, hasFraction: local.hasFraction };
}

/**
 * The output form of every taken_at: ISO 8601 UTC with `Z`, whole seconds
 * (`2024-07-13T00:00:00Z`) unless the source carried a non-zero fraction
 * (`2024-07-13T00:00:00.123Z`). Out-of-range instants give null.
 */
export function formatInstant(instant: Instant): string | null {
  const date = new Date(instant.utcMs);
  const year = date.getUTCFullYear();
  if (Number.isNaN(date.getTime()) || year < MIN_YEAR || year > MAX_YEAR) return null;
  const iso = date.toISOString();
  return instant.hasFraction && date.getUTCMilliseconds() !== 0 ? iso : iso.replace(/\.\d{3}Z$/, 'Z');
}
