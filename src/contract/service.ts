import { z } from 'zod';
import { Instant } from './media.js';

/** GET /ping. */
export const PingResponse = z.object({ status: z.literal('ok') });
export type PingResponse = z.infer<typeof PingResponse>;

export const Environment = z.enum(['sandbox', 'production']);
export type Environment = z.infer<typeof Environment>;

export const RateLimitPolicy = z.object({
  enabled: z.boolean(),
  limit: z.number().int().positive().nullable(),
  window_seconds: z.number().int().positive().nullable(),
});
export type RateLimitPolicy = z.infer<typeof RateLimitPolicy>;

/** GET /health. */
export const HealthResponse = z.object({
  status: z.literal('ok'),
  partner_id: z.string(),
  environment: Environment,
  rate_limit: RateLimitPolicy,
});
export type HealthResponse = z.infer<typeof HealthResponse>;

/** Optional body of POST /users/{user_id}/sync-complete: nothing, or `{}`. */
export const SyncCompleteRequest = z.object({}).strict();

/** Response of POST /users/{user_id}/sync-complete. */
export const SyncCompleteResponse = z.object({
  has_synced: z.literal(true),
  last_sync_at: Instant,
});
export type SyncCompleteResponse = z.infer<typeof SyncCompleteResponse>;
