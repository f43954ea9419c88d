import type { z } from 'zod';
import { StartupError } from '../../errors.js';
import { RawEvent, RawPerformer, RawVenue, wallClockMs } from './schema.js';
import type {
  Catalog,
  CatalogEvent,
  CatalogEventPerformer,
  CatalogPerformer,
  CatalogVenue,
  EventKind,
} from './types.js';
import { createZoneClock, isValidZone, type ZoneClock } from './zone-clock.js';

const SECTIONS = ['venues', 'performers', 'events'] as const;

function fail(entry: string, message: string): never {
  throw new StartupError('invalid_catalog', `${entry}: ${message}`, { details: { entry } });
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** "venues[3] (id 42)" when the entry has a usable id, else "venues[3]". */
function label(section: string, index: number, item: unknown): string {
  const id = isObject(item) ? item.id : undefined;
  return typeof id === 'number' || typeof id === 'string'
    ? `${section}[${index}] (id ${String(id)})`
    : `${section}[${index}]`;
}

function firstIssue(error: z.ZodError): string {
  const issue = error.issues[0];
  if (issue === undefined) return 'invalid entry';
  const path = issue.path.map((part) => (typeof part === 'number' ? `[${part}]` : `.${String(part)}`));
  const where = path.join('').replace(/^\./, '');
  return where === '' ? issue.message : `${where}: ${issue.message}`;
}

function isId(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value > 0;
}

const KINDS: ReadonlySet<unknown> = new Set<EventKind>(['concert', 'sport', 'other']);

/** The members every fast-path event has; `performers`, `licensed` and `hidden` may be absent. */
const REQUIRED_EVENT_MEMBERS = ['id', 'name', 'kind', 'venue_id', 'starts_at_local'] as const;

/** 1 for a member that is set, 0 for one that is absent. */
function given(value: unknown): number {
  return value === undefined ? 0 : 1;
}

/**
 * True when `value` has exactly `known` own members: the ones the caller found set, and no
 * other (an unknown member, which an adopted object would keep in memory unread).
 */
function onlyKnownMembers(value: Record<string, unknown>, known: number): boolean {
  return Object.keys(value).length === known;
}

/**
 * The common, fully specified event shape checked by hand: zod costs microseconds per
 * event, which a million-event catalog cannot afford. Anything this rejects (a bad member)
 * goes through the zod schema, which has the last word. With `adopt`, a parsed object with
 * no unknown member (nor any in its performers) becomes the event itself, defaults and
 * `startsAtMs` set on it: a million copies cost a third of a large catalog's load, most of
 * it in GC. One with unknown members is copied, so they are not kept in memory.
 * `test/service/catalog/parse.agreement.test.ts` holds it to RawEvent, member by member.
 */
function fastEvent(item: unknown, adopt: boolean): CatalogEvent | null {
  if (!isObject(item)) return null;
  const { id, name, kind, venue_id, starts_at_local, performers, licensed, hidden } = item;
  if (!isId(id) || !isId(venue_id) || !KINDS.has(kind)) return null;
  if (typeof name !== 'string' || name.trim().length === 0 || typeof starts_at_local !== 'string') return null;
  // Absent members take the schema's defaults: licensed, not hidden, no performers.
  if (licensed !== undefined && typeof licensed !== 'boolean') return null;
  if (hidden !== undefined && typeof hidden !== 'boolean') return null;
  if (performers !== undefined && !Array.isArray(performers)) return null;
  const source: unknown[] = performers ?? [];
  for (let i = 0; i < source.length; i += 1) {
    const p: unknown = source[i];
    if (!isObject(p) || !isId(p.id)) return null;
    const headliner = p.is_headliner ?? null;
    if (headliner !== null && typeof headliner !== 'boolean') return null;
  }
  const entries = source as Array<Record<string, unknown>>;
  const adoptable =
    adopt &&
    onlyKnownMembers(item, REQUIRED_EVENT_MEMBERS.length + given(performers) + given(licensed) + given(hidden)) &&
    entries.every((p) => onlyKnownMembers(p, 1 + given(p.is_headliner)));
  if (adoptable) {
    for (const p of entries) p.is_headliner ??= null;
    const event = item as unknown as CatalogEvent;
    // A double from the start: the field never changes representation mid-load.
    event.startsAtMs = Number.NaN;
    event.performers = source as CatalogEventPerformer[];
    event.licensed = licensed ?? true;
    event.hidden = hidden ?? false;
    return event;
  }
  return {
    id,
    name,
    kind: kind as EventKind,
    venue_id,
    starts_at_local,
    startsAtMs: Number.NaN,
    performers: entries.map((p) => ({
      id: p.id as number,
      is_headliner: (p.is_headliner as boolean | null | undefined) ?? null,
    })),
    licensed: licensed ?? true,
    hidden: hidden ?? false,
  };
}

function parseVenues(items: unknown[]): Map<number, CatalogVenue> {
  const venues = new Map<number, CatalogVenue>();
  // Checking a zone name builds an Intl formatter (a fraction of a millisecond): once per name.
  const zones = new Map<string, boolean>();
  items.forEach((item, index) => {
    const result = RawVenue.safeParse(item);
    if (!result.success) fail(label('venues', index, item), firstIssue(result.error));
    const venue = result.data;
    let zoneOk = zones.get(venue.timezone);
    if (zoneOk === undefined) {
      zoneOk = isValidZone(venue.timezone);
      zones.set(venue.timezone, zoneOk);
    }
    if (!zoneOk) fail(label('venues', index, item), 'timezone: not a known IANA time zone');
    if (venues.has(venue.id)) fail(label('venues', index, item), `duplicate venue id ${venue.id}`);
    venues.set(venue.id, venue);
  });
  return venues;
}

function parsePerformers(items: unknown[]): Map<number, CatalogPerformer> {
  const performers = new Map<number, CatalogPerformer>();
  items.forEach((item, index) => {
    const result = RawPerformer.safeParse(item);
    if (!result.success) fail(label('performers', index, item), firstIssue(result.error));
    const performer = result.data;
    if (performers.has(performer.id)) {
      fail(label('performers', index, item), `duplicate performer id ${performer.id}`);
    }
    performers.set(performer.id, performer);
  });
  return performers;
}

function parseEvents(
  items: unknown[],
  venues: ReadonlyMap<number, CatalogVenue>,
  performers: ReadonlyMap<number, CatalogPerformer>,
  clock: ZoneClock,
  adopt: boolean,
): Map<number, CatalogEvent> {
  const events = new Map<number, CatalogEvent>();
  // Each venue's zone converter, resolved once: an event costs one lookup by venue id.
  const toInstantAt = new Map<number, (wallClockMs: number) => number>();
  for (const venue of venues.values()) toInstantAt.set(venue.id, clock.converter(venue.timezone));
  for (let index = 0; index < items.length; index += 1) {
    const item = items[index];
    let event = fastEvent(item, adopt);
    if (event === null) {
      const result = RawEvent.safeParse(item);
      if (!result.success) fail(label('events', index, item), firstIssue(result.error));
      event = { ...result.data, startsAtMs: 0 };
    }
    // A map that does not grow already held the id: one hash operation instead of two.
    const size = events.size;
    events.set(event.id, event);
    if (events.size === size) fail(label('events', index, item), `duplicate event id ${event.id}`);
    const toInstant = toInstantAt.get(event.venue_id);
    if (toInstant === undefined) fail(label('events', index, item), `venue_id ${event.venue_id} does not exist`);
    const list = event.performers;
    for (let i = 0; i < list.length; i += 1) {
      const id = (list[i] as CatalogEventPerformer).id;
      if (!performers.has(id))
        fail(label('events', index, item), `performers[${i}]: performer id ${id} does not exist`);
      // Events list a handful of performers: a quadratic scan beats allocating a Set.
      for (let j = 0; j < i; j += 1) {
        if ((list[j] as CatalogEventPerformer).id === id) {
          fail(label('events', index, item), `performers[${i}]: performer id ${id} is listed twice`);
        }
      }
    }
    const wall = wallClockMs(event.starts_at_local);
    if (wall === null) {
      fail(
        label('events', index, item),
        'starts_at_local: must be a real local date-time YYYY-MM-DDTHH:mm:ss (no offset)',
      );
    }
    event.startsAtMs = toInstant(wall);
  }
  return events;
}

export interface ParseCatalogOptions {
  /**
   * The value was parsed for this call and nobody else holds it: its event objects become the
   * catalog's (and are changed) instead of being copied. Default false: `json` is only read.
   */
  adopt?: boolean;
}

/**
 * Validates a parsed catalog JSON value. Unknown members are ignored; the first bad entry
 * throws StartupError('invalid_catalog') naming it, e.g.
 * "events[12] (id 1012): venue_id 99 does not exist".
 */
export function parseCatalog(json: unknown, options: ParseCatalogOptions = {}): Catalog {
  if (!isObject(json)) fail('catalog', 'expected a JSON object with venues, performers and events arrays');
  for (const section of SECTIONS) {
    if (!Array.isArray(json[section])) fail(section, 'expected an array');
  }
  const venues = parseVenues(json.venues as unknown[]);
  const performers = parsePerformers(json.performers as unknown[]);
  const events = parseEvents(json.events as unknown[], venues, performers, createZoneClock(), options.adopt === true);
  return { venues, performers, events };
}
