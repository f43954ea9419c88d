import type { Event } from '../contract/events.js';
import { isVisibleEvent, toWireEvent, type Catalog } from './catalog/index.js';
import type { MatchedMediaRow } from './store/types.js';

/**
 * The user's view of one event: catalog data plus either their complete media (taken_at
 * ascending, as the store reads it) or only its count. Null when the loaded catalog no
 * longer shows that event.
 */
export function userEventView(
  catalog: Catalog,
  eventId: number,
  content: { media: MatchedMediaRow[] } | { mediaCount: number },
): Event | null {
  const event = catalog.events.get(eventId);
  if (event === undefined || !isVisibleEvent(event)) return null;
  const wire = toWireEvent(event, catalog);
  if ('media' in content) {
    // The store reads media in the wire shape already (a thumbnail never sent is absent).
    wire.media = content.media;
    wire.media_count = content.media.length;
  } else {
    wire.media_count = content.mediaCount;
  }
  return wire;
}
