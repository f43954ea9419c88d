import { MAX_BATCH_ITEMS, MediaMetadata, type MediaMatch, type RejectedMedia } from '../contract/media.js';
import { checkMatchingInputs } from '../rules/rejection.js';
import type { Catalog } from './catalog/index.js';
import type { Matcher } from './matching/index.js';
import { isWellFormedMedia, type CheckedMedia } from './media-check.js';
import { ServiceError } from './service-error.js';
import type { StoredMedia } from './store/types.js';

/** One accepted item after matching: stored when `stored` is set, removed otherwise. */
export interface Evaluated {
  mediaId: string;
  stored: StoredMedia | null;
  match: MediaMatch;
}

export interface EvaluatedBatch {
  rejected: RejectedMedia[];
  /** One per accepted item, in request order. */
  accepted: Evaluated[];
  /** Each accepted asset id once, with its final outcome: what the store applies. */
  distinct: Evaluated[];
}

/**
 * Checks the shape of the batch (request-level failures) and evaluates every item.
 * Request-level: `media` missing or not an array (400 invalid_request), no item (400
 * empty_batch), more than 200 (413 invalid_batch_size), an item that is not an object or
 * has no non-empty string id (400 invalid_media_item, details.index).
 * Per item, in this order: a bad member -> `invalid`; no coordinates -> `missing_coordinates`;
 * no capture time -> `missing_taken_at`.
 */
export function evaluateBatch(body: unknown, matcher: Matcher, catalog: Catalog): EvaluatedBatch {
  const media = typeof body === 'object' && body !== null && !Array.isArray(body) ? (body as { media?: unknown }).media : undefined;
  if (!Array.isArray(media)) throw new ServiceError('invalid_request', 'body must be an object with a "media" array');
  if (media.length === 0) throw new ServiceError('empty_batch', 'the batch holds no media item');
  if (media.length > MAX_BATCH_ITEMS) {
    throw new ServiceError('invalid_batch_size', `a batch holds at most ${MAX_BATCH_ITEMS} items, got ${media.length}`, {
      details: { max: MAX_BATCH_ITEMS, received: media.length },
    });
  }
  media.forEach((item, index) => {
    const id = typeof item === 'object' && item !== null && !Array.isArray(item) ? (item as { id?: unknown }).id : undefined;
    if (typeof id !== 'string' || id.length === 0) {
      throw new ServiceError('invalid_media_item', `media item ${index} is not an object with a non-empty string id`, {
        details: { index },
      });
    }
  });

  const rejected: RejectedMedia[] = [];
  const accepted: Evaluated[] = [];
  for (const raw of media as Array<{ id: string; media_type?: unknown }>) {
    let m: CheckedMedia;
    if (isWellFormedMedia(raw)) {
      m = raw;
    } else {
      // The schema decides `invalid` exactly. A null media_type means "not given": the
      // contract's default (photo) applies.
      const parsed = MediaMetadata.safeParse(raw.media_type === null ? { ...raw, media_type: undefined } : raw);
      if (!parsed.success) {
        rejected.push({ id: raw.id, reason: 'invalid' });
        continue;
      }
      m = parsed.data;
    }
    const inputs = checkMatchingInputs(m);
    if (!inputs.ok) {
      rejected.push({ id: m.id, reason: inputs.reason });
      continue;
    }
    const takenAtMs = Date.parse(inputs.takenAt);
    if (!Number.isFinite(takenAtMs)) {
      rejected.push({ id: m.id, reason: 'invalid' });
      continue;
    }
    const outcome = matcher.match({ latitude: inputs.latitude, longitude: inputs.longitude, takenAtMs });
    if (outcome.kind === 'matched' && catalog.events.has(outcome.eventId)) {
      accepted.push({
        mediaId: m.id,
        stored: {
          media_id: m.id,
          event_id: outcome.eventId,
          taken_at: inputs.takenAt,
          taken_at_ms: takenAtMs,
          media_type: m.media_type ?? 'photo',
          thumbnail_url: m.thumbnail_url ?? null,
        },
        // Decisions §2: venue_id is non-null only for an item on an unlicensed event.
        match: { media_id: m.id, matched: true, event_id: outcome.eventId, venue_id: null },
      });
    } else {
      const venueId = outcome.kind === 'unlicensed' ? outcome.venueId : null;
      accepted.push({ mediaId: m.id, stored: null, match: { media_id: m.id, matched: false, event_id: null, venue_id: venueId } });
    }
  }
  return { rejected, ...settleDuplicates(accepted) };
}

/**
 * The same id twice in one batch: items apply in order, so the last accepted copy decides
 * what is stored, and every accepted copy reports that final outcome (one entry per item
 * keeps `accepted` = sent - rejected; equal entries keep the answer unambiguous).
 */
function settleDuplicates(accepted: Evaluated[]): Pick<EvaluatedBatch, 'accepted' | 'distinct'> {
  const last = new Map<string, Evaluated>();
  for (const item of accepted) last.set(item.mediaId, item);
  if (last.size === accepted.length) return { accepted, distinct: accepted };
  return { accepted: accepted.map((item) => last.get(item.mediaId) as Evaluated), distinct: [...last.values()] };
}
