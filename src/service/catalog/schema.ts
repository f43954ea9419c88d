import { z } from 'zod';

/** Largest geofence radius accepted, in metres: a festival ground fits, a city does not. */
export const MAX_RADIUS_M = 20_000;
/** Geofence radius of a venue that gives none, in metres. */
export const DEFAULT_RADIUS_M = 300;

const Id = z.number().int().positive().max(Number.MAX_SAFE_INTEGER);
const Name = z.string().refine((text) => text.trim().length > 0, { message: 'must not be empty' });
const OptionalText = z
  .string()
  .nullable()
  .optional()
  .transform((value) => value ?? null);

function digits(text: string, from: number, count: number): number {
  let value = 0;
  for (let i = from; i < from + count; i += 1) {
    const code = text.charCodeAt(i) - 48;
    if (code < 0 || code > 9) return -1;
    value = value * 10 + code;
  }
  return value;
}

/**
 * The wall-clock time as ms "as if UTC", or null when it is not a valid
 * `YYYY-MM-DDTHH:mm:ss`. Hand-parsed: it runs once per event, a million times for a big
 * catalog, and a regular expression match allocates.
 */
export function wallClockMs(text: string): number | null {
  if (
    text.length !== 19 ||
    text[4] !== '-' ||
    text[7] !== '-' ||
    text[10] !== 'T' ||
    text[13] !== ':' ||
    text[16] !== ':'
  ) {
    return null;
  }
  const year = digits(text, 0, 4);
  const month = digits(text, 5, 2);
  const day = digits(text, 8, 2);
  const hour = digits(text, 11, 2);
  const minute = digits(text, 14, 2);
  const second = digits(text, 17, 2);
  // Years before 1900 are no plausible event (and Date.UTC maps 0-99 to the 1900s).
  if (year < 1900 || month < 1 || month > 12 || day < 1 || hour < 0 || hour > 23 || minute < 0 || minute > 59)
    return null;
  if (second < 0 || second > 59 || day > daysInMonth(year, month)) return null;
  return Date.UTC(year, month - 1, day, hour, minute, second);
}

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

function daysInMonth(year: number, month: number): number {
  if (month === 2 && year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0)) return 29;
  return DAYS_IN_MONTH[month - 1] as number;
}

export const RawVenue = z.object({
  id: Id,
  name: Name,
  city: OptionalText,
  region: OptionalText,
  country: OptionalText,
  latitude: z.number().min(-90).max(90),
  longitude: z.number().min(-180).max(180),
  radius_m: z.number().positive().max(MAX_RADIUS_M).default(DEFAULT_RADIUS_M),
  /** Checked against the zone database by parseCatalog, once per distinct name. */
  timezone: z.string().min(1),
});
export type RawVenue = z.infer<typeof RawVenue>;

export const RawPerformer = z.object({
  id: Id,
  name: Name,
  category: OptionalText,
  image_url: z
    .url()
    .nullable()
    .optional()
    .transform((value) => value ?? null),
});
export type RawPerformer = z.infer<typeof RawPerformer>;

export const RawEventPerformer = z.object({
  id: Id,
  is_headliner: z
    .boolean()
    .nullable()
    .optional()
    .transform((value) => value ?? null),
});

export const RawEvent = z.object({
  id: Id,
  name: Name,
  kind: z.enum(['concert', 'sport', 'other']),
  venue_id: Id,
  starts_at_local: z.string().refine((text) => wallClockMs(text) !== null, {
    message: 'must be a real local date-time YYYY-MM-DDTHH:mm:ss (no offset)',
  }),
  performers: z.array(RawEventPerformer).default([]),
  licensed: z.boolean().default(true),
  hidden: z.boolean().default(false),
});
export type RawEvent = z.infer<typeof RawEvent>;
