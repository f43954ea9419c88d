/** A catalog as loaded and validated: plain data, no I/O. */
export type EventKind = 'concert' | 'sport' | 'other';

export interface CatalogVenue {
  id: number;
  name: string;
  city: string | null;
  region: string | null;
  country: string | null;
  latitude: number;
  longitude: number;
  /** Geofence radius in metres (default 300). */
  radius_m: number;
  /** IANA time zone of the venue. */
  timezone: string;
}

export interface CatalogPerformer {
  id: number;
  name: string;
  /** Genre for music, league for sport. */
  category: string | null;
  image_url: string | null;
}

export interface CatalogEventPerformer {
  id: number;
  is_headliner: boolean | null;
}

export interface CatalogEvent {
  id: number;
  name: string;
  kind: EventKind;
  venue_id: number;
  /** Wall-clock time at the venue, `YYYY-MM-DDTHH:mm:ss`, never converted for output. */
  starts_at_local: string;
  /** The start as an instant (ms since epoch), from starts_at_local in the venue's zone. */
  startsAtMs: number;
  performers: CatalogEventPerformer[];
  licensed: boolean;
  hidden: boolean;
}

export interface Catalog {
  venues: ReadonlyMap<number, CatalogVenue>;
  performers: ReadonlyMap<number, CatalogPerformer>;
  events: ReadonlyMap<number, CatalogEvent>;
}
