import type { Event } from '../contract/events.js';
import { MAX_BATCH_ITEMS, MediaMetadata, type MediaMatch, type RejectedMedia } from '../contract/media.js';
import { checkMatchingInputs } from '../rules/rejection.js';
import { INVALID_JSON_MESSAGE, parseJsonBody } from './json-body.js';
import type { Matcher } from './matching/index.js';
import { isWellFormedMedia, type CheckedMedia } from './media-check.js';
import { ServiceError, type ServiceErrorCode } from './service-error.js';
import type { StoredMedia } from './store/types.js';

/** One accepted item after matching: stored when `stored` is set, removed otherwise. */
interface Evaluated {
  mediaId: string;
  stored: StoredMedia | null;
  match: MediaMatch;
}

interface EvaluatedBatch {
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
function evaluateBatch(body: unknown, matcher: Matcher): EvaluatedBatch {
  const media =
    typeof body === 'object' && body !== null && !Array.isArray(body) ? (body as { media?: unknown }).media : undefined;
  if (!Array.isArray(media)) throw new ServiceError('invalid_request', 'body must be an object with a "media" array');
  if (media.length === 0) throw new ServiceError('empty_batch', 'the batch holds no media item');
  if (media.length > MAX_BATCH_ITEMS) {
    throw new ServiceError(
      'invalid_batch_size',
      `a batch holds at most ${MAX_BATCH_ITEMS} items, got ${media.length}`,
      {
        details: { max: MAX_BATCH_ITEMS, received: media.length },
      },
    );
  }
  media.forEach((item, index) => {
    const id =
      typeof item === 'object' && item !== null && !Array.isArray(item) ? (item as { id?: unknown }).id : undefined;
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
    // The matcher holds only the catalog's shown events: a matched id is always a catalog event.
    if (outcome.kind === 'matched') {
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
        // docs/contract/product-decisions.md §2: venue_id is non-null only for an item on an unlicensed event.
        match: { media_id: m.id, matched: true, event_id: outcome.eventId, venue_id: null },
      });
    } else {
      const venueId = outcome.kind === 'unlicensed' ? outcome.venueId : null;
      accepted.push({
        mediaId: m.id,
        stored: null,
        match: { media_id: m.id, matched: false, event_id: null, venue_id: venueId },
      });
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

/** What a batch asks of the store and what its answer says, worked out from the body alone. */
export interface IngestPlan {
  /** Each accepted asset id once, with its final outcome (the store's IngestWrite items). */
  items: Array<{ mediaId: string; stored: StoredMedia | null }>;
  /** The matched events, each once, in the order their first item came. */
  eventIds: number[];
  accepted: number;
  matched: number;
  rejected: RejectedMedia[];
  /** The answer's `matches` member, serialized: one entry per accepted item, in request order. */
  matchesJson: string;
}

/** A refusal of the whole request, in a form that crosses threads. */
export interface PlanError {
  code: ServiceErrorCode;
  message: string;
  details?: Record<string, unknown>;
}

/**
 * `body`: the bytes are not JSON (refused before the user is looked up, as any unreadable
 * body is); `batch`: the batch's shape is wrong (refused after).
 */
export type PlannedIngest = { ok: true; plan: IngestPlan } | { ok: false; stage: 'body' | 'batch'; error: PlanError };

/**
 * Parses and evaluates one ingest body (UTF-8 bytes; undefined for none). Pure and
 * self-contained, so it runs in an ingest thread as well as in the request's thread; the
 * route then applies `items` in one store transaction and sends ingestReplyJson.
 */
export function planIngest(body: Uint8Array | undefined, matcher: Matcher): PlannedIngest {
  const parsed =
    body === undefined
      ? { ok: true as const, value: undefined }
      : parseJsonBody(Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString('utf8'));
  if (!parsed.ok)
    return { ok: false, stage: 'body', error: { code: 'invalid_request', message: INVALID_JSON_MESSAGE } };
  let batch: EvaluatedBatch;
  try {
    batch = evaluateBatch(parsed.value, matcher);
  } catch (error) {
    if (!(error instanceof ServiceError)) throw error;
    const refusal: PlanError = { code: error.code as ServiceErrorCode, message: error.message };
    if (error.details) refusal.details = error.details;
    return { ok: false, stage: 'batch', error: refusal };
  }
  const eventIds = new Set<number>();
  const matches: MediaMatch[] = new Array(batch.accepted.length);
  let matched = 0;
  batch.accepted.forEach((item, index) => {
    matches[index] = item.match;
    if (item.match.matched) {
      matched += 1;
      eventIds.add(item.match.event_id as number);
    }
  });
  return {
    ok: true,
    plan: {
      items: batch.distinct.map(({ mediaId, stored }) => ({ mediaId, stored })),
      eventIds: [...eventIds],
      accepted: batch.accepted.length,
      matched,
      rejected: batch.rejected,
      matchesJson: JSON.stringify(matches),
    },
  };
}

/** The ServiceError a refused plan answers with. */
export function planRefusal(error: PlanError): ServiceError {
  return new ServiceError(error.code, error.message, error.details ? { details: error.details } : {});
}

/**
 * The answer to POST /users/{id}/media (IngestResponse), as JSON text: the members in the
 * contract's order, `matches` spliced in as the plan serialized it.
 */
export function ingestReplyJson(plan: IngestPlan, events: readonly Event[], lastSyncAt: string): string {
  return (
    `{"accepted":${plan.accepted},"matched":${plan.matched},"rejected":${JSON.stringify(plan.rejected)},` +
    `"matches":${plan.matchesJson},"events":${JSON.stringify(events)},"last_sync_at":${JSON.stringify(lastSyncAt)}}`
  );
}
