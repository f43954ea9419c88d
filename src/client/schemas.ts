import { z } from 'zod';
import { Environment, RateLimitPolicy, SyncCompleteResponse } from '../contract/index.js';

/*
 * The contract leaves the bodies of /ping and /sync-complete and the members of the health
 * rate-limit policy "not shown". The embedded service fixes them (product decisions), but a
 * remote host may answer differently, so the client checks what the contract does promise and
 * keeps the rest as sent instead of calling a legitimate answer a violation.
 */

/** GET /ping: any JSON object (the embedded service answers `{"status":"ok"}`). */
export const PingResult = z.looseObject({});
export type PingResult = z.infer<typeof PingResult>;

/** GET /health: partner and environment are promised; the rate-limit members are not. */
export const HealthResult = z.looseObject({
  partner_id: z.string(),
  environment: z.union([Environment, z.string()]),
  rate_limit: z.unknown(),
});
export type HealthResult = z.infer<typeof HealthResult>;

/** The rate-limit policy in the embedded service's shape, when a health answer has it. */
export function readRateLimit(value: unknown): RateLimitPolicy | null {
  const parsed = RateLimitPolicy.safeParse(value);
  return parsed.success ? parsed.data : null;
}

/** POST sync-complete: the embedded shape when present; any JSON object otherwise. */
export const SyncCompleteResult = z.union([SyncCompleteResponse, z.looseObject({})]);
export type SyncCompleteResult = z.infer<typeof SyncCompleteResult>;
