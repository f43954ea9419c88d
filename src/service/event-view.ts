import type { Event } from '../contract/events.js';
import { isVisibleEvent, toWireEvent, type Catalog } from './catalog/index.js';
import type { MatchedMediaRow, Store } from './store/types.js';

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
    // The store reads media in the wire shape already (a thumbnail never sent is absent).
    const media = options.media ?? deps.store.eventMedia(userId, eventId);
    wire.media = media;
    wire.media_count = media.length;
  } else {
    wire.media_count = options.mediaCount ?? deps.store.eventMedia(userId, eventId).length;
  }
  return wire;
}
