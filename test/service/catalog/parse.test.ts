import { describe, expect, it } from 'vitest';
import { parseCatalog, toWireEvent } from '../../../src/service/catalog/index.js';
import { CamrollError } from '../../../src/errors.js';
import { build, event, performer, venue, type Raw } from './build.js';

function errorOf(json: unknown, adopt = false): CamrollError {
  try {
    parseCatalog(json, { adopt });
  } catch (error) {
    if (error instanceof CamrollError) return error;
    throw error;
  }
  throw new Error('expected parseCatalog to throw');
}

const ok = {
  venues: [venue(1)],
  performers: [performer(7, 'Band', 'rock')],
  events: [event(100, 1, '2024-07-12T20:00:00')],
};
const withEvent = (e: Raw): unknown => ({ ...ok, events: [event(100, 1, '2024-07-12T20:00:00'), e] });
const withVenue = (v: Raw): unknown => ({ ...ok, venues: [v] });

describe('parseCatalog: the first bad entry is named', () => {
  it.each<[string, unknown, string]>([
    ['not an object', [], 'catalog: expected a JSON object with venues, performers and events arrays'],
    ['missing events', { venues: [], performers: [] }, 'events: expected an array'],
    ['venues not an array', { venues: {}, performers: [], events: [] }, 'venues: expected an array'],
    [
      'unknown time zone',
      withVenue(venue(1, { timezone: 'Mars/Olympus' })),
      'venues[0] (id 1): timezone: not a known IANA time zone',
    ],
    ['latitude out of range', withVenue(venue(1, { latitude: 91 })), 'venues[0] (id 1): latitude:'],
    ['negative radius', withVenue(venue(1, { radius_m: -5 })), 'venues[0] (id 1): radius_m:'],
    ['venue without name', withVenue(venue(1, { name: ' ' })), 'venues[0] (id 1): name: must not be empty'],
    ['venue id not an integer', withVenue(venue(1.5)), 'venues[0] (id 1.5): id:'],
    ['duplicate venue id', { ...ok, venues: [venue(1), venue(1)] }, 'venues[1] (id 1): duplicate venue id 1'],
    [
      'bad image url',
      { ...ok, performers: [{ id: 7, name: 'Band', image_url: 'not a url' }] },
      'performers[0] (id 7): image_url:',
    ],
    [
      'duplicate performer',
      { ...ok, performers: [performer(7, 'A', null), performer(7, 'B', null)] },
      'performers[1] (id 7): duplicate performer id 7',
    ],
    [
      'unknown venue',
      withEvent(event(1012, 99, '2024-07-12T20:00:00')),
      'events[1] (id 1012): venue_id 99 does not exist',
    ],
    [
      'unknown performer',
      withEvent(event(101, 1, '2024-07-12T20:00:00', { performers: [{ id: 8, is_headliner: true }] })),
      'events[1] (id 101): performers[0]: performer id 8 does not exist',
    ],
    [
      'performer twice',
      withEvent(event(101, 1, '2024-07-12T20:00:00', { performers: [{ id: 7 }, { id: 7 }] })),
      'events[1] (id 101): performers[1]: performer id 7 is listed twice',
    ],
    ['unknown kind', withEvent(event(101, 1, '2024-07-12T20:00:00', { kind: 'opera' })), 'events[1] (id 101): kind:'],
    [
      'impossible date',
      withEvent(event(101, 1, '2023-02-29T20:00:00')),
      'events[1] (id 101): starts_at_local: must be a real local date-time',
    ],
    ['offset given', withEvent(event(101, 1, '2024-07-12T20:00:00Z')), 'events[1] (id 101): starts_at_local:'],
    ['hour 24', withEvent(event(101, 1, '2024-07-12T24:00:00')), 'events[1] (id 101): starts_at_local:'],
    [
      'licensed not boolean',
      withEvent(event(101, 1, '2024-07-12T20:00:00', { licensed: 'yes' })),
      'events[1] (id 101): licensed:',
    ],
    [
      'duplicate event id',
      withEvent(event(100, 1, '2024-07-13T20:00:00')),
      'events[1] (id 100): duplicate event id 100',
    ],
    ['event not an object', withEvent(null as unknown as Raw), 'events[1]:'],
  ])('%s', (_name, json, message) => {
    const error = errorOf(json);
    expect(error.code).toBe('invalid_catalog');
    expect(error.message.startsWith(message)).toBe(true);
    // Adopting the parsed value (as loadCatalog does) refuses it the same way.
    expect(errorOf(structuredClone(json), true).message).toBe(error.message);
  });
});

describe('parseCatalog: defaults and unknown members', () => {
  it('parses an empty but valid catalog to three empty maps, with or without adopt', () => {
    for (const adopt of [false, true]) {
      const catalog = parseCatalog({ venues: [], performers: [], events: [] }, { adopt });
      expect([catalog.venues.size, catalog.performers.size, catalog.events.size]).toEqual([0, 0, 0]);
    }
  });

  it('fills radius 300, licensed true, hidden false, null texts, empty performers; ignores unknown members', () => {
    const catalog = build({
      venues: [{ id: 1, name: 'V', latitude: 1, longitude: 2, timezone: 'UTC', capacity: 20000 }],
      performers: [{ id: 7, name: 'P', genre_extra: 'x' }],
      events: [
        { id: 100, name: 'E', kind: 'other', venue_id: 1, starts_at_local: '2024-01-01T10:00:00', promoter: 'z' },
      ],
    });
    expect(catalog.venues.get(1)).toEqual({
      id: 1,
      name: 'V',
      city: null,
      region: null,
      country: null,
      latitude: 1,
      longitude: 2,
      radius_m: 300,
      timezone: 'UTC',
    });
    expect(catalog.performers.get(7)).toEqual({ id: 7, name: 'P', category: null, image_url: null });
    expect(catalog.events.get(100)).toEqual({
      id: 100,
      name: 'E',
      kind: 'other',
      venue_id: 1,
      starts_at_local: '2024-01-01T10:00:00',
      startsAtMs: Date.UTC(2024, 0, 1, 10),
      performers: [],
      licensed: true,
      hidden: false,
    });
  });

  it('keeps is_headliner null when absent, and unknown members of a fast-path event out', () => {
    const catalog = build({
      venues: [venue(1)],
      performers: [performer(7, 'Band', 'rock')],
      events: [event(100, 1, '2024-07-12T20:00:00', { performers: [{ id: 7 }], extra: 1 })],
    });
    const e = catalog.events.get(100);
    expect(e?.performers).toEqual([{ id: 7, is_headliner: null }]);
    expect(e && 'extra' in e).toBe(false);
  });
});

describe('parseCatalog: adopting the parsed value instead of copying it', () => {
  const json = {
    venues: [venue(1)],
    performers: [performer(7, 'Band', 'rock'), performer(8, 'Opener', null)],
    events: [
      event(100, 1, '2024-07-12T20:00:00', { performers: [{ id: 7, is_headliner: true }, { id: 8 }], promoter: 'z' }),
      { id: 101, name: 'Defaults', kind: 'sport', venue_id: 1, starts_at_local: '2024-07-13T18:30:00' },
      event(102, 1, '2024-07-14T20:00:00', { licensed: false, hidden: true }),
    ],
  };

  it('gives the same events, and never lets an unknown member reach the wire', () => {
    const copied = parseCatalog(structuredClone(json));
    const adopted = parseCatalog(structuredClone(json), { adopt: true });
    expect([...adopted.events.keys()]).toEqual([...copied.events.keys()]);
    for (const [id, event] of copied.events) {
      expect(adopted.events.get(id)).toMatchObject(event);
      expect(toWireEvent(adopted.events.get(id)!, adopted)).toEqual(toWireEvent(event, copied));
    }
  });

  it("copies an event with an unknown member (its own or a performer's), so nothing unread stays in memory", () => {
    const value = structuredClone(json);
    const adopted = parseCatalog(value, { adopt: true });
    expect(adopted.events.get(101)).toBe(value.events[1]); // exactly the known members: adopted
    expect(adopted.events.get(100)).not.toBe(value.events[0]); // `promoter`: copied
    expect(adopted.events.get(100) && 'promoter' in adopted.events.get(100)!).toBe(false);
    const withExtraPerformerMember = structuredClone(json);
    (withExtraPerformerMember.events[2] as Record<string, unknown>).performers = [{ id: 7, role: 'guest' }];
    const event = parseCatalog(withExtraPerformerMember, { adopt: true }).events.get(102)!;
    expect(event).not.toBe(withExtraPerformerMember.events[2]);
    expect(event.performers).toEqual([{ id: 7, is_headliner: null }]);
  });

  it('leaves the value untouched unless told to adopt it', () => {
    const value = structuredClone(json);
    parseCatalog(value);
    expect(value).toEqual(json);
    parseCatalog(value, { adopt: true });
    expect(value.events[1]).toMatchObject({ licensed: true, hidden: false, performers: [] });
  });
});

describe('local start to instant in the venue zone', () => {
  it.each<[string, string, string, string]>([
    ['summer time New York', 'America/New_York', '2024-07-12T20:00:00', '2024-07-13T00:00:00.000Z'],
    ['winter New York', 'America/New_York', '2024-01-12T20:00:00', '2024-01-13T01:00:00.000Z'],
    ['evening of a spring-forward day', 'America/New_York', '2024-03-10T20:00:00', '2024-03-11T00:00:00.000Z'],
    ['gap 02:30 moves forward to 03:30 EDT', 'America/New_York', '2024-03-10T02:30:00', '2024-03-10T07:30:00.000Z'],
    ['overlap 01:30 takes the earlier (EDT)', 'America/New_York', '2024-11-03T01:30:00', '2024-11-03T05:30:00.000Z'],
    ['just after the overlap', 'America/New_York', '2024-11-03T02:00:00', '2024-11-03T07:00:00.000Z'],
    ['London gap 01:30 becomes 02:30 BST', 'Europe/London', '2024-03-31T01:30:00', '2024-03-31T01:30:00.000Z'],
    ['London evening before BST', 'Europe/London', '2024-03-30T20:00:00', '2024-03-30T20:00:00.000Z'],
    ['Paris overlap 02:30 takes CEST', 'Europe/Paris', '2024-10-27T02:30:00', '2024-10-27T00:30:00.000Z'],
    ['Sydney summer (AEDT)', 'Australia/Sydney', '2023-12-09T19:30:00', '2023-12-09T08:30:00.000Z'],
    ['Sydney gap 02:30 becomes 03:30 AEDT', 'Australia/Sydney', '2024-10-06T02:30:00', '2024-10-05T16:30:00.000Z'],
    ['Sydney overlap 02:30 takes AEDT', 'Australia/Sydney', '2024-04-07T02:30:00', '2024-04-06T15:30:00.000Z'],
    ['Lord Howe half-hour gap', 'Australia/Lord_Howe', '2024-10-06T02:15:00', '2024-10-05T15:45:00.000Z'],
    ['São Paulo, no DST since 2019', 'America/Sao_Paulo', '2024-11-16T21:00:00', '2024-11-17T00:00:00.000Z'],
    ['Fiji', 'Pacific/Fiji', '2024-06-01T19:00:00', '2024-06-01T07:00:00.000Z'],
    ['Kathmandu +05:45', 'Asia/Kathmandu', '2024-06-01T19:00:00', '2024-06-01T13:15:00.000Z'],
  ])('%s', (_name, timezone, local, instant) => {
    const catalog = build({ venues: [venue(1, { timezone })], events: [event(100, 1, local)] });
    expect(new Date(catalog.events.get(100)?.startsAtMs ?? NaN).toISOString()).toBe(instant);
  });
});
