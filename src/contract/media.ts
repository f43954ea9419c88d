import { z } from 'zod';

/** Largest asset id the service accepts. */
export const MAX_ASSET_ID_LENGTH = 255;
/**
 * Longest `thumbnail_url` the service keeps, in UTF-16 code units. The URL is never fetched,
 * validated or served: any string up to this length is stored and echoed verbatim.
 */
export const MAX_THUMBNAIL_URL_LENGTH = 2048;
/** Hard bounds of a media batch. */
export const MIN_BATCH_ITEMS = 1;
export const MAX_BATCH_ITEMS = 200;

/** An ISO 8601 instant: `Z` or an explicit offset. The client always sends `Z`. */
export const Instant = z.iso.datetime({ offset: true });

// In a `u` regex a lone UTF-16 surrogate is a code point of category Cs; a paired one is not.
const LONE_SURROGATE = /\p{Cs}/u;

/** Whether a string has a UTF-8 form: no lone UTF-16 surrogate (`"\ud800"` in JSON). */
export function isWellFormedText(value: string): boolean {
  return !LONE_SURROGATE.test(value);
}

/**
 * An asset id: 1 to 255 characters of well-formed text. A lone surrogate cannot be stored or
 * echoed unchanged (it has no UTF-8 form), so such an id is `invalid` rather than altered.
 */
export const AssetId = z
  .string()
  .min(1)
  .max(MAX_ASSET_ID_LENGTH)
  .refine(isWellFormedText, 'the id holds a lone UTF-16 surrogate');

/**
 * A thumbnail URL as sent: any string. One the service cannot keep verbatim (longer than
 * MAX_THUMBNAIL_URL_LENGTH, or with a lone surrogate) is dropped, never the item with it.
 */
export const ThumbnailUrlInput = z
  .string()
  .transform((value) => (value.length <= MAX_THUMBNAIL_URL_LENGTH && isWellFormedText(value) ? value : null));

/** A thumbnail URL as the service echoes it: exactly the string that was sent. */
export const ThumbnailUrl = z.string().max(MAX_THUMBNAIL_URL_LENGTH);

export const MediaType = z.enum(['photo', 'video']);
export type MediaType = z.infer<typeof MediaType>;

/** One photo or video, as sent in a batch. Metadata only, never image bytes. */
export const MediaMetadata = z.object({
  id: AssetId,
  taken_at: Instant.nullable().optional(),
  latitude: z.number().min(-90).max(90).nullable().optional(),
  longitude: z.number().min(-180).max(180).nullable().optional(),
  media_type: MediaType.optional(),
  filename: z.string().nullable().optional(),
  thumbnail_url: ThumbnailUrlInput.nullable().optional(),
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
