import { EARLIEST_SHIFT_MS, LATEST_SHIFT_MS, wallClockToInstant } from '../../rules/wall-clock.js';

const MINUTE_MS = 60_000;
const DAY_MS = 86_400_000;
/**
 * Zone offsets are sampled at the edges of fortnight-long chunks and bisected to the minute
 * where they differ. Each sample costs microseconds (Intl), so a catalog with many zones
 * and 12 years of events would spend seconds sampling daily; offset changes less than a
 * fortnight apart (none in current rules: DST seasons last months) would go unseen.
 */
const CHUNK_MS = 14 * DAY_MS;

/** One cached stretch of a zone: the offset at its start and the changes within it. */
interface OffsetChunk {
  startOffsetMin: number;
  /** Instants (ms) at which the offset changes, ascending, and the offset after each. */
  changesAt: number[];
  offsetsAfter: number[];
}

interface ZoneEntry {
  /** The zone's offset (minutes east of UTC) at an instant, straight from Intl. */
  offset: (instantMs: number) => number;
  chunks: Map<number, OffsetChunk>;
  /** Offset at the start of each chunk, shared by neighbouring chunks. */
  edges: Map<number, number>;
}

/** Converts wall-clock times in IANA zones to instants, caching zone offsets. */
export interface ZoneClock {
  /** The zone's offset (minutes east of UTC) at an instant. */
  offsetAt(zone: string, instantMs: number): number;
  /**
   * The instant of a wall-clock time (given as ms "as if UTC") in a zone. A time that does
   * not exist (spring-forward gap) is shifted forward by the gap, as clocks do; a time that
   * occurs twice (fall-back overlap) gives the earlier instant.
   */
  toInstant(zone: string, wallClockMs: number): number;
  /** `toInstant` bound to one zone, so a caller converting many times skips the name lookup. */
  converter(zone: string): (wallClockMs: number) => number;
}

/** True when `name` is an IANA zone this runtime knows. */
export function isValidZone(name: string): boolean {
  if (name === '') return false;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: name });
    return true;
  } catch {
    return false;
  }
}

/**
 * A zone's offset reader, from Intl's `longOffset` zone name (`GMT-05:00`, `GMT+05:45`,
 * `GMT-04:56:02` for a local mean time, `GMT` for none). One `format` call costs about a
 * quarter of luxon's `formatToParts`, and loading a catalog samples tens of thousands of
 * instants; the answers are luxon's (checked against it for every zone, 1890 to 2039).
 */
export function zoneOffsetReader(name: string): (instantMs: number) => number {
  const format = new Intl.DateTimeFormat('en-US', { timeZone: name, timeZoneName: 'longOffset' });
  return (instantMs) => parseLongOffset(format.format(instantMs));
}

/** Minutes east of UTC in a `longOffset` name. */
export function parseLongOffset(text: string): number {
  const match = /GMT(?:([+-])(\d{2}):(\d{2})(?::(\d{2}))?)?$/.exec(text);
  if (match === null) throw new Error(`unexpected zone offset text: ${text}`);
  if (match[1] === undefined) return 0;
  const minutes = Number(match[2]) * 60 + Number(match[3]) + Number(match[4] ?? 0) / 60;
  return match[1] === '-' ? -minutes : minutes;
}

/**
 * Creates a zone clock. luxon's local-to-instant conversion resolves an ambiguous time
 * relative to the offset in force *today*, so the same catalog could load differently in
 * summer and winter; this resolves gaps and overlaps by a fixed rule instead, and caches
 * offsets per zone and fortnight so a million events convert in a fraction of a second. Not shared between loads.
 */
export function createZoneClock(): ZoneClock {
  const zones = new Map<string, ZoneEntry>();

  function zoneEntry(name: string): ZoneEntry {
    let entry = zones.get(name);
    if (entry === undefined) {
      entry = { offset: zoneOffsetReader(name), chunks: new Map(), edges: new Map() };
      zones.set(name, entry);
    }
    return entry;
  }

  function edgeOffset(entry: ZoneEntry, index: number): number {
    let offset = entry.edges.get(index);
    if (offset === undefined) {
      offset = entry.offset(index * CHUNK_MS);
      entry.edges.set(index, offset);
    }
    return offset;
  }

  function buildChunk(entry: ZoneEntry, index: number): OffsetChunk {
    const startOffsetMin = edgeOffset(entry, index);
    const endOffset = edgeOffset(entry, index + 1);
    if (startOffsetMin === endOffset) return { startOffsetMin, changesAt: [], offsetsAfter: [] };
    // Bisect to the minute at which the offset changed (changes happen on whole minutes).
    let lo = index * CHUNK_MS;
    let hi = lo + CHUNK_MS;
    while (hi - lo > MINUTE_MS) {
      const mid = lo + Math.floor((hi - lo) / 2 / MINUTE_MS) * MINUTE_MS;
      if (entry.offset(mid) === startOffsetMin) lo = mid;
      else hi = mid;
    }
    return { startOffsetMin, changesAt: [hi], offsetsAfter: [endOffset] };
  }

  function chunkAt(entry: ZoneEntry, index: number): OffsetChunk {
    let chunk = entry.chunks.get(index);
    if (chunk === undefined) {
      chunk = buildChunk(entry, index);
      entry.chunks.set(index, chunk);
    }
    return chunk;
  }

  function offsetAt(name: string, instantMs: number): number {
    return entryOffsetAt(zoneEntry(name), instantMs);
  }

  function entryOffsetAt(entry: ZoneEntry, instantMs: number): number {
    const chunk = chunkAt(entry, Math.floor(instantMs / CHUNK_MS));
    let offset = chunk.startOffsetMin;
    for (let i = 0; i < chunk.changesAt.length; i += 1) {
      if (instantMs >= (chunk.changesAt[i] as number)) offset = chunk.offsetsAfter[i] as number;
      else break;
    }
    return offset;
  }

  function toInstant(name: string, wallClockMs: number): number {
    return entryToInstant(zoneEntry(name), wallClockMs);
  }

  function converter(name: string): (wallClockMs: number) => number {
    const entry = zoneEntry(name);
    return (wallClockMs) => entryToInstant(entry, wallClockMs);
  }

  function entryToInstant(entry: ZoneEntry, wallClockMs: number): number {
    // Most times: both samples below fall in one chunk without a change, so that chunk's
    // offset converts the time (one small-map lookup; a per-day cache was slower: its
    // maps outgrow the processor caches on a big catalog).
    const from = wallClockMs - EARLIEST_SHIFT_MS;
    const index = Math.floor(from / CHUNK_MS);
    const chunk = chunkAt(entry, index);
    if (chunk.changesAt.length === 0 && wallClockMs + LATEST_SHIFT_MS < (index + 1) * CHUNK_MS) {
      return wallClockMs - chunk.startOffsetMin * MINUTE_MS;
    }
    // A change lies near this wall-clock time: the shared rule resolves the gap or overlap.
    return wallClockToInstant(wallClockMs, (instantMs) => entryOffsetAt(entry, instantMs)).utcMs;
  }

  return { offsetAt, toInstant, converter };
}
