import { z } from 'zod';
import { Instant, ThumbnailUrl } from './media.js';

export const Venue = z.object({
  id: z.number().int(),
  name: z.string(),
  city: z.string().nullable().optional(),
  region: z.string().nullable().optional(),
  country: z.string().nullable().optional(),
  latitude: z.number().nullable().optional(),
  longitude: z.number().nullable().optional(),
});
export type Venue = z.infer<typeof Venue>;

export const Performer = z.object({
  id: z.number().int(),
  name: z.string(),
  category: z.string().nullable().optional(),
  image_url: z.url().nullable().optional(),
  is_headliner: z.boolean().nullable().optional(),
});
export type Performer = z.infer<typeof Performer>;

export const EventMedia = z.object({
  media_id: z.string(),
  taken_at: Instant.nullable().optional(),
  media_type: z.enum(['photo', 'video']).nullable().optional(),
  thumbnail_url: ThumbnailUrl.nullable().optional(),
});
export type EventMedia = z.infer<typeof EventMedia>;

/**
 * Local wall-clock time at the venue, ISO 8601 with no offset (`Z` included). Never converted.
 * Not `z.iso.datetime({ local: true })`, which also takes a trailing `Z`.
 */
export const LocalDateTime = z
  .string()
  .regex(new RegExp(`^${z.regexes.date.source.slice(1, -1)}T(?:[01]\\d|2[0-3]):[0-5]\\d(?::[0-5]\\d(?:\\.\\d+)?)?$`), {
    message: 'a local date-time with no offset, e.g. 2024-07-12T20:00:00',
  });

export const Event = z.object({
  id: z.number().int(),
  name: z.string(),
  starts_at_local: LocalDateTime,
  venue: Venue.nullable().optional(),
  performers: z.array(Performer).nullable().optional(),
  media_count: z.number().int().nullable().optional(),
  media: z.array(EventMedia).nullable().optional(),
});
export type Event = z.infer<typeof Event>;

export const EventsPage = z.object({
  events: z.array(Event),
  has_more: z.boolean(),
  next_cursor: z.string().nullable(),
  total: z.number().int().optional(),
});
export type EventsPage = z.infer<typeof EventsPage>;

/** The page size parameter's bounds and default. */
export const EVENTS_PAGE_DEFAULT = 20;
export const EVENTS_PAGE_MAX = 100;

/** Query of GET /users/{user_id}/events, as strings off the URL. */
export const EventsQuery = z.object({
  cursor: z.string().min(1).optional(),
  include_media: z.enum(['true', 'false', '1', '0']).optional(),
  limit: z
    .string()
    .regex(/^\d+$/, 'limit must be a whole number')
    .transform(Number)
    .pipe(z.number().int().min(1).max(EVENTS_PAGE_MAX))
    .optional(),
});
export type EventsQuery = z.infer<typeof EventsQuery>;
