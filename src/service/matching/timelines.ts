import type { Catalog } from '../catalog/types.js';

/** Every venue's visible events in flat arrays: venue v owns positions offsets[v] .. offsets[v + 1] - 1. */
export interface Timelines {
  offsets: Int32Array;
  /** Start instants (ms), ascending within a venue; equal starts by ascending event id. */
  starts: Float64Array;
  eventIds: Float64Array;
  /** 1 for a licensed event. */
  licensed: Uint8Array;
}

/**
 * Lays out the catalog's non-hidden events by venue (`venueIndex` maps a venue id to its
 * position) and sorts each venue's stretch by start, then id. Built in typed arrays with a
 * counting pass and an in-place sort: a million events sorted as objects through a
 * comparator cost over a second of the catalog load.
 */
export function buildTimelines(
  catalog: Catalog,
  venueIndex: ReadonlyMap<number, number>,
  venueCount: number,
): Timelines {
  // One pass over the catalog: each kept event's venue, start, id and licence.
  const size = catalog.events.size;
  const venueOf = new Int32Array(size);
  const startOf = new Float64Array(size);
  const idOf = new Float64Array(size);
  const licensedOf = new Uint8Array(size);
  const offsets = new Int32Array(venueCount + 1);
  let kept = 0;
  for (const event of catalog.events.values()) {
    const v = event.hidden ? undefined : venueIndex.get(event.venue_id);
    if (v === undefined) continue;
    venueOf[kept] = v;
    startOf[kept] = event.startsAtMs;
    idOf[kept] = event.id;
    licensedOf[kept] = event.licensed ? 1 : 0;
    offsets[v + 1] = (offsets[v + 1] as number) + 1;
    kept += 1;
  }
  for (let v = 0; v < venueCount; v += 1) offsets[v + 1] = (offsets[v + 1] as number) + (offsets[v] as number);

  // Counting sort by venue (catalog order within a venue), then each stretch by start and id.
  const starts = new Float64Array(kept);
  const eventIds = new Float64Array(kept);
  const licensed = new Uint8Array(kept);
  const next = offsets.slice(0, venueCount);
  for (let i = 0; i < kept; i += 1) {
    const v = venueOf[i] as number;
    const at = next[v] as number;
    next[v] = at + 1;
    starts[at] = startOf[i] as number;
    eventIds[at] = idOf[i] as number;
    licensed[at] = licensedOf[i] as number;
  }
  const timelines = { offsets, starts, eventIds, licensed };
  for (let v = 0; v < venueCount; v += 1) sortStretch(timelines, offsets[v] as number, (offsets[v + 1] as number) - 1);
  return timelines;
}

function before(t: Timelines, a: number, b: number): boolean {
  const sa = t.starts[a] as number;
  const sb = t.starts[b] as number;
  return sa < sb || (sa === sb && (t.eventIds[a] as number) < (t.eventIds[b] as number));
}

function swap(t: Timelines, a: number, b: number): void {
  const s = t.starts[a] as number;
  t.starts[a] = t.starts[b] as number;
  t.starts[b] = s;
  const id = t.eventIds[a] as number;
  t.eventIds[a] = t.eventIds[b] as number;
  t.eventIds[b] = id;
  const l = t.licensed[a] as number;
  t.licensed[a] = t.licensed[b] as number;
  t.licensed[b] = l;
}

/** Sorts positions lo..hi (inclusive): quicksort with a median-of-three pivot, insertion sort for short runs. */
function sortStretch(t: Timelines, lo: number, hi: number): void {
  while (hi - lo > 16) {
    const mid = (lo + hi) >>> 1;
    // Median of three into `mid`, then park it at hi - 1 as the pivot.
    if (before(t, mid, lo)) swap(t, mid, lo);
    if (before(t, hi, lo)) swap(t, hi, lo);
    if (before(t, hi, mid)) swap(t, hi, mid);
    swap(t, mid, hi - 1);
    const pivot = hi - 1;
    let i = lo;
    let j = hi - 1;
    for (;;) {
      do i += 1;
      while (before(t, i, pivot));
      do j -= 1;
      while (before(t, pivot, j));
      if (i >= j) break;
      swap(t, i, j);
    }
    swap(t, i, hi - 1);
    // Recurse into the shorter side, loop on the longer: the stack stays logarithmic.
    if (i - lo < hi - i) {
      sortStretch(t, lo, i - 1);
      lo = i + 1;
    } else {
      sortStretch(t, i + 1, hi);
      hi = i - 1;
    }
  }
  for (let i = lo + 1; i <= hi; i += 1) {
    for (let j = i; j > lo && before(t, j, j - 1); j -= 1) swap(t, j, j - 1);
  }
}
