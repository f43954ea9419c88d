import { describe, expect, it } from 'vitest';
import type { Catalog, CatalogEvent } from '../../../src/service/catalog/types.js';
import { buildTimelines } from '../../../src/service/matching/timelines.js';
import { seededRandom as random } from '../../../src/util/seeded-random.js';

/** A catalog of bare events (venues and performers do not matter to the layout). */
function catalogOf(events: CatalogEvent[]): Catalog {
  return { venues: new Map(), performers: new Map(), events: new Map(events.map((e) => [e.id, e])) };
}

function ev(id: number, venueId: number, startsAtMs: number, extra: Partial<CatalogEvent> = {}): CatalogEvent {
  return {
    id,
    name: `E${id}`,
    kind: 'other',
    venue_id: venueId,
    starts_at_local: '',
    startsAtMs,
    performers: [],
    licensed: true,
    hidden: false,
    ...extra,
  };
}

/** The layout stated plainly: per venue, visible events sorted as objects. */
function expected(events: CatalogEvent[], venueIds: number[]): Array<Array<[number, number, number]>> {
  return venueIds.map((venueId) =>
    events
      .filter((e) => e.venue_id === venueId && !e.hidden)
      .sort((a, b) => a.startsAtMs - b.startsAtMs || a.id - b.id)
      .map((e) => [e.startsAtMs, e.id, e.licensed ? 1 : 0]),
  );
}

function actual(events: CatalogEvent[], venueIds: number[]): Array<Array<[number, number, number]>> {
  const venueIndex = new Map(venueIds.map((id, index) => [id, index]));
  const t = buildTimelines(catalogOf(events), venueIndex, venueIds.length);
  return venueIds.map((_, v) => {
    const out: Array<[number, number, number]> = [];
    for (let at = t.offsets[v] as number; at < (t.offsets[v + 1] as number); at += 1) {
      out.push([t.starts[at] as number, t.eventIds[at] as number, t.licensed[at] as number]);
    }
    return out;
  });
}

describe('buildTimelines', () => {
  it.each([1, 2, 3, 4])('lays out and sorts like a plain object sort (seed %i)', (seed) => {
    const next = random(seed);
    const venueIds = [3, 1, 7, 9, 12];
    const events: CatalogEvent[] = [];
    // Stretches short and long (insertion sort and quicksort), many equal starts, ids in any
    // order, hidden and unlicensed events, and events at venues the index does not know.
    for (let i = 0; i < 3000; i += 1) {
      const venueId = [3, 1, 7, 7, 7, 9, 12, 12, 99][Math.floor(next() * 9)] as number;
      const start = Date.UTC(2024, 0, 1) + Math.floor(next() * (venueId === 7 ? 40 : 4000)) * 3_600_000;
      events.push(ev(1 + Math.floor(next() * 1e9), venueId, start, { hidden: next() < 0.05, licensed: next() > 0.1 }));
    }
    const unique = [...new Map(events.map((e) => [e.id, e])).values()];
    expect(actual(unique, venueIds)).toEqual(expected(unique, venueIds));
  });

  it('handles sorted, reversed and single-event stretches and empty venues', () => {
    const sorted = Array.from({ length: 200 }, (_, i) => ev(i + 1, 1, i * 1000));
    const reversed = Array.from({ length: 200 }, (_, i) => ev(1000 + i, 2, (200 - i) * 1000));
    const single = [ev(5000, 3, 42)];
    const all = [...sorted, ...reversed, ...single];
    expect(actual(all, [1, 2, 3, 4])).toEqual(expected(all, [1, 2, 3, 4]));
  });
});
