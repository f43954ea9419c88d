import { z } from 'zod';

/** Largest asset id the service accepts. */
export const MAX_ASSET_ID_LENGTH = 255;
/** Hard bounds of a media batch. */
export const MIN_BATCH_ITEMS = 1;
export const MAX_BATCH_ITEMS = 200;

/** An ISO 8601 instant: `Z` or an explicit offset. The client always sends `Z`. */
export const Instant = z.iso.datetime({ offset: true });

export const MediaType = z.enum(['photo', 'video']);
export type MediaType = z.infer<typeof MediaType>;

/** One photo or video, as sent in a batch. Metadata only, never image bytes. */
export const MediaMetadata = z.object({
  id: z.string().min(1).max(MAX_ASSET_ID_LENGTH),
  taken_at: Instant.nullable().optional(),
  latitude: z.number().min(-90).max(90).nullable().optional(),
  longitude: z.number().min(-180).max(180).nullable().optional(),
  media_type: MediaType.optional(),
  filename: z.string().nullable().optional(),
  thumbnail_url: z.url().nullable().optional(),
  duration_seconds: z.number().nonnegative().nullable().optional(),
  device_make: z.string().nullable().optional(),
  device_model: z.string().nullable().optional(),
  device_lens_model: z.string().nullable().optional(),
});
export type MediaMetadata = z.infer<typeof MediaMetadata>;

/**
 * The ingest body as the service first reads it: the array is checked for size here, the
 * items one by one afterwards (a bad item is a per-item rejection, not a failed request).
 */
export const IngestRequest = z.object({
  media: z.array(z.unknown()),
});
export type IngestRequest = z.infer<typeof IngestRequest>;

export const RejectionReason = z.enum(['missing_coordinates', 'missing_taken_at', 'invalid']);
export type RejectionReason = z.infer<typeof RejectionReason>;

export const RejectedMedia = z.object({
  id: z.string(),
  reason: RejectionReason,
});
export type RejectedMedia = z.infer<typeof RejectedMedia>;

export const MediaMatch = z.object({
  media_id: z.string(),
  matched: z.boolean(),
  event_id: z.number().int().nullable().optional(),
  venue_id: z.number().int().nullable().optional(),
});
export type MediaMatch = z.infer<typeof MediaMatch>;
