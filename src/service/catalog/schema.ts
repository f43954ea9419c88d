import { z } from 'zod';
import { isValidZone } from './zone-clock.js';

/** Largest geofence radius accepted, in metres: a festival ground fits, a city does not. */
export const MAX_RADIUS_M = 20_000;
/** Geofence radius of a venue that gives none, in metres. */
export const DEFAULT_RADIUS_M = 300;

const Id = z.number().int().positive().max(Number.MAX_SAFE_INTEGER);
const Name = z.string().refine((text) => text.trim().length > 0, { message: 'must not be empty' });
const OptionalText = z.string().nullable().optional().transform((value) => value ?? null);

/** `YYYY-MM-DDTHH:mm:ss`, wall-clock at the venue, with a real calendar date. */
export const LOCAL_DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})$/;

/** The wall-clock time as ms "as if UTC", or null when it is not a valid `YYYY-MM-DDTHH:mm:ss`. */
export function wallClockMs(text: string): number | null {
  const m = LOCAL_DATE_TIME.exec(text);
  if (m === null) return null;
  const year = Number(m[1]);
  const month = Number(m[2]);
  const day = Number(m[3]);
  const hour = Number(m[4]);
  const minute = Number(m[5]);
  const second = Number(m[6]);
  if (month < 1 || month > 12 || day < 1 || hour > 23 || minute > 59 || second > 59) return null;
  const ms = Date.UTC(year, month - 1, day, hour, minute, second);
  // Date.UTC rolls 2023-02-30 over to March: a changed day means the date does not exist.
  if (new Date(ms).getUTCDate() !== day) return null;
  // Date.UTC maps years 0-99 to 1900-1999; such dates are not plausible events anyway.
  if (year < 1900) return null;
  return ms;
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
  timezone: z.string().refine(isValidZone, { message: 'not a known IANA time zone' }),
});
export type RawVenue = z.infer<typeof RawVenue>;

export const RawPerformer = z.object({
  id: Id,
  name: Name,
  category: OptionalText,
  image_url: z.url().nullable().optional().transform((value) => value ?? null),
});
export type RawPerformer = z.infer<typeof RawPerformer>;

export const RawEventPerformer = z.object({
  id: Id,
  is_headliner: z.boolean().nullable().optional().transform((value) => value ?? null),
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
