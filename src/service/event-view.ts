import type { Event, EventMedia } from '../contract/events.js';
import { isVisibleEvent, toWireEvent, type Catalog } from './catalog/index.js';
import type { MatchedMediaRow, Store } from './store/types.js';

/** A stored media row as EventMedia; a thumbnail never sent stays absent. */
function toEventMedia(row: MatchedMediaRow): EventMedia {
  const media: EventMedia = { media_id: row.media_id, taken_at: row.taken_at, media_type: row.media_type };
  if (row.thumbnail_url !== null) media.thumbnail_url = row.thumbnail_url;
  return media;
}

/**
 * The user's view of one event: catalog data plus their complete media (taken_at
 * ascending). Null when the loaded catalog no longer shows that event.
 */
export function userEventView(
  deps: { store: Store; catalog: Catalog },
  userId: string,
  eventId: number,
  options: { includeMedia: boolean; mediaCount?: number; media?: MatchedMediaRow[] },
): Event | null {
  const event = deps.catalog.events.get(eventId);
  if (event === undefined || !isVisibleEvent(event)) return null;
  const wire = toWireEvent(event, deps.catalog);
  if (options.includeMedia) {
    const media = (options.media ?? deps.store.eventMedia(userId, eventId)).map(toEventMedia);
    wire.media = media;
    wire.media_count = media.length;
  } else {
    wire.media_count = options.mediaCount ?? deps.store.eventMedia(userId, eventId).length;
  }
  return wire;
}
