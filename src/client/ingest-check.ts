import { Event, Instant, RejectionReason, type IngestResponse } from '../contract/index.js';

const REASONS: ReadonlySet<unknown> = new Set(RejectionReason.options);
const EVENTS = Event.array();

function optionalInt(value: unknown): boolean {
  return value === undefined || value === null || Number.isSafeInteger(value);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * True when a parsed POST .../media body certainly passes the IngestResponse schema: the
 * per-item arrays (`rejected`, `matches`, 200 items a batch) are checked by hand, about ten
 * times cheaper than the schema, and the rest (the timestamp, the few events) by the
 * schema's own parts. False means "not sure": the caller asks the whole schema, which has
 * the last word (and names what is wrong). It never says true for a body the schema refuses.
 */
export function isWellFormedIngestResponse(body: unknown): body is IngestResponse {
  if (!isRecord(body)) return false;
  const { accepted, matched, rejected, matches, events, last_sync_at: lastSyncAt } = body;
  if (!Number.isSafeInteger(accepted) || (accepted as number) < 0) return false;
  if (!Number.isSafeInteger(matched) || (matched as number) < 0) return false;
  if (!Array.isArray(rejected) || !Array.isArray(matches) || !Array.isArray(events)) return false;
  for (const item of rejected as unknown[]) {
    if (!isRecord(item) || typeof item.id !== 'string' || !REASONS.has(item.reason)) return false;
  }
  for (const item of matches as unknown[]) {
    if (!isRecord(item) || typeof item.media_id !== 'string' || typeof item.matched !== 'boolean') return false;
    if (!optionalInt(item.event_id) || !optionalInt(item.venue_id)) return false;
  }
  if (!Instant.safeParse(lastSyncAt).success) return false;
  return events.length === 0 || EVENTS.safeParse(events).success;
}
