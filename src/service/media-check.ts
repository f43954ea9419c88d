import { z } from 'zod';
import { isWellFormedText, MAX_ASSET_ID_LENGTH, MAX_THUMBNAIL_URL_LENGTH } from '../contract/media.js';

/** A media item whose members the fast check or the schema has vouched for. */
export interface CheckedMedia {
  id: string;
  taken_at?: string | null;
  latitude?: number | null;
  longitude?: number | null;
  /** Null counts as absent (the contract's default, photo, applies). */
  media_type?: 'photo' | 'video' | null;
  thumbnail_url?: string | null;
}

// The schema's own pattern for `taken_at`, so the two paths cannot drift apart on it.
const INSTANT_PATTERN = z.core.regexes.datetime({ offset: true, local: false, precision: null });

function optionalText(value: unknown): boolean {
  return value === undefined || value === null || typeof value === 'string';
}

function optionalNumberIn(value: unknown, min: number, max: number): boolean {
  // NaN fails both comparisons; the bounds keep Infinity out.
  return value === undefined || value === null || (typeof value === 'number' && value >= min && value <= max);
}

/**
 * True when `item` certainly passes the MediaMetadata schema unchanged (with `media_type:
 * null` read as absent): a hand-written check of the common well-formed item, about ten times cheaper
 * than the schema. False means "not sure": the caller asks the schema, which has the last
 * word on `invalid`. It never says true for an item the schema would refuse;
 * `test/service/media-check.test.ts` holds it to the schema on every member the schema has.
 */
export function isWellFormedMedia(item: unknown): item is CheckedMedia {
  if (typeof item !== 'object' || item === null || Array.isArray(item)) return false;
  const m = item as Record<string, unknown>;
  const id = m.id;
  if (typeof id !== 'string' || id.length === 0 || id.length > MAX_ASSET_ID_LENGTH || !isWellFormedText(id))
    return false;
  const takenAt = m.taken_at;
  if (takenAt !== undefined && takenAt !== null && (typeof takenAt !== 'string' || !INSTANT_PATTERN.test(takenAt))) {
    return false;
  }
  if (!optionalNumberIn(m.latitude, -90, 90) || !optionalNumberIn(m.longitude, -180, 180)) return false;
  const mediaType = m.media_type;
  if (mediaType !== undefined && mediaType !== null && mediaType !== 'photo' && mediaType !== 'video') return false;
  if (!optionalNumberIn(m.duration_seconds, 0, Number.MAX_VALUE)) return false;
  if (!optionalText(m.filename) || !optionalText(m.device_make) || !optionalText(m.device_model)) return false;
  if (!optionalText(m.device_lens_model)) return false;
  const thumbnail = m.thumbnail_url;
  // A thumbnail the schema would drop (too long, lone surrogate) goes the schema's way.
  if (thumbnail !== undefined && thumbnail !== null) {
    if (typeof thumbnail !== 'string' || thumbnail.length > MAX_THUMBNAIL_URL_LENGTH || !isWellFormedText(thumbnail))
      return false;
  }
  return true;
}
