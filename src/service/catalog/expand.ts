import type { Event, Performer, Venue } from '../../contract/events.js';
import type { Catalog, CatalogEvent, CatalogVenue } from './types.js';

/** A catalog venue as the wire Venue (no radius, no time zone). */
export function toWireVenue(venue: CatalogVenue): Venue {
  return {
    id: venue.id,
    name: venue.name,
    city: venue.city,
    region: venue.region,
    country: venue.country,
    latitude: venue.latitude,
    longitude: venue.longitude,
  };
}

/** The event's performers as wire Performers, in catalog order, with is_headliner. */
export function toWirePerformers(event: CatalogEvent, catalog: Catalog): Performer[] {
  const performers: Performer[] = [];
  for (const entry of event.performers) {
    const performer = catalog.performers.get(entry.id);
    // parseCatalog guarantees the reference; a hand-built catalog may not.
    if (performer === undefined) continue;
    performers.push({
      id: performer.id,
      name: performer.name,
      category: performer.category,
      image_url: performer.image_url,
      is_headliner: entry.is_headliner,
    });
  }
  return performers;
}

/**
 * A catalog event expanded to the wire Event, without media: venue object, performers
 * with is_headliner, and starts_at_local unchanged. The caller adds media and media_count.
 */
export function toWireEvent(event: CatalogEvent, catalog: Catalog): Event {
  const venue = catalog.venues.get(event.venue_id);
  return {
    id: event.id,
    name: event.name,
    starts_at_local: event.starts_at_local,
    venue: venue === undefined ? null : toWireVenue(venue),
    performers: toWirePerformers(event, catalog),
  };
}

/** True for an event partners may see: licensed and not hidden. */
export function isVisibleEvent(event: CatalogEvent): boolean {
  return event.licensed && !event.hidden;
}
