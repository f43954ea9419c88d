import { parseCatalog } from '../../../src/service/catalog/index.js';
import type { Catalog } from '../../../src/service/catalog/types.js';

/** A raw catalog entry: whatever a catalog file may hold. */
export type Raw = Record<string, unknown>;

/** A venue entry with sensible defaults, overridden by `fields`. */
export function venue(id: number, fields: Raw = {}): Raw {
  return {
    id,
    name: `Venue ${id}`,
    city: 'City',
    region: 'Region',
    country: 'US',
    latitude: 40,
    longitude: -74,
    radius_m: 250,
    timezone: 'America/New_York',
    ...fields,
  };
}

/** A performer entry. */
export function performer(id: number, name: string, category: string | null): Raw {
  return { id, name, category, image_url: null };
}

/** An event entry (licensed, visible, no performers unless given). */
export function event(id: number, venueId: number, startsAtLocal: string, fields: Raw = {}): Raw {
  return {
    id,
    name: `Event ${id}`,
    kind: 'concert',
    venue_id: venueId,
    starts_at_local: startsAtLocal,
    performers: [],
    licensed: true,
    hidden: false,
    ...fields,
  };
}

/** Parses a catalog made of the given entries. */
export function build(parts: { venues?: Raw[]; performers?: Raw[]; events?: Raw[] }): Catalog {
  return parseCatalog({ venues: parts.venues ?? [], performers: parts.performers ?? [], events: parts.events ?? [] });
}
