import { z } from 'zod';
import { Event } from './events.js';
import { Instant, MediaMatch, RejectedMedia } from './media.js';

/** Response of POST /users/{user_id}/media. */
export const IngestResponse = z.object({
  accepted: z.number().int().nonnegative(),
  matched: z.number().int().nonnegative(),
  rejected: z.array(RejectedMedia),
  matches: z.array(MediaMatch),
  events: z.array(Event),
  last_sync_at: Instant,
});
export type IngestResponse = z.infer<typeof IngestResponse>;
