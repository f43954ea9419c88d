import { z } from 'zod';
import { Venue } from './events.js';
import { Instant } from './media.js';

export const Season = z.enum(['spring', 'summer', 'autumn', 'winter']);
export type Season = z.infer<typeof Season>;

/** A calendar date at the venue, YYYY-MM-DD. */
export const LocalDate = z.iso.date();

export const UniqueVenue = z.object({
  venue: Venue,
  visit_count: z.number().int().positive(),
});
export type UniqueVenue = z.infer<typeof UniqueVenue>;

/** Response of GET /users/{user_id}/stats. */
export const Stats = z.object({
  total_events: z.number().int().nonnegative(),
  total_venues: z.number().int().nonnegative(),
  has_synced: z.boolean(),
  sports_count: z.number().int().nonnegative(),
  concerts_count: z.number().int().nonnegative(),
  first_attended: LocalDate.nullable(),
  most_recently_attended: LocalDate.nullable(),
  busiest_year: z.string().nullable(),
  top_season: Season.nullable(),
  top_artist: z.string().nullable(),
  top_genre: z.string().nullable(),
  top_team: z.string().nullable(),
  top_league: z.string().nullable(),
  unique_venues: z.array(UniqueVenue),
  last_sync_at: Instant.nullable(),
});
export type Stats = z.infer<typeof Stats>;
