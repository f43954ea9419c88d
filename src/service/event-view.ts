import type { Event } from '../contract/events.js';
import { isVisibleEvent, toWireEvent, type Catalog, type CatalogEvent } from './catalog/index.js';
import type { MatchedMediaRow } from './store/types.js';

/**
 * The one visibility rule for a user's stored events: the loaded catalog lists the event and
 * shows it (licensed, not hidden). Pages, their `total` and stats all ask here, so they agree
 * when a later catalog hides or drops an event the database still holds.
 */
export function shownEvent(catalog: Catalog, eventId: number): CatalogEvent | null {
  const event = catalog.events.get(eventId);
  return event !== undefined && isVisibleEvent(event) ? event : null;
}

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
  const event = shownEvent(catalog, eventId);
  if (event === null) return null;
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
