import type { ByteSource } from '../types.js';
import type { Box } from './bmff.js';
import { listBoxes, listBoxesIn, readPayload, whole } from './bmff.js';
import { ascii, viewOf } from './bytes.js';
import { cleanText } from './text.js';
import type { Coordinates } from './coordinates.js';
import { parseIso6709 } from './coordinates.js';
import type { ParsedDate } from './dates.js';
import { parseDateText } from './dates.js';
import { ParseProblem } from './errors.js';

/** What a QuickTime/MP4 movie header says. */
export interface VideoFacts {
  /** mvhd creation time, epoch ms (UTC); null when 0 / unset. */
  mvhdMs: number | null;
  durationSeconds: number | null;
  /** com.apple.quicktime.creationdate, else ©day. */
  date: ParsedDate | null;
  coordinates: Coordinates | null;
  /** true when the coordinates came from a 3GPP `loci` box rather than ISO 6709 text. */
  coordinatesFromLoci: boolean;
  make: string | null;
  model: string | null;
  /** com.apple.quicktime.content.identifier: a Live Photo's video shares it with its still. */
  contentId: string | null;
}

const MAC_EPOCH_OFFSET_S = 2_082_844_800; // seconds from 1904-01-01 to 1970-01-01
const MAX_META_BYTES = 4 * 1024 * 1024;
const decoder = new TextDecoder();

/** Reads `moov` (wherever it sits among the top-level boxes); never touches `mdat`. */
export async function readVideo(bytes: ByteSource, topLevel: Box[]): Promise<VideoFacts> {
  const moov = topLevel.find((b) => b.type === 'moov');
  if (!moov) throw new ParseProblem('corrupt_file', 'no movie header (moov box)');
  whole(moov);
  const facts: VideoFacts = {
    mvhdMs: null,
    durationSeconds: null,
    date: null,
    coordinates: null,
    coordinatesFromLoci: false,
    make: null,
    model: null,
    contentId: null,
  };
  const items = new Map<string, string>();
  for (const child of await listBoxes(bytes, moov.payloadStart, moov.end)) {
    if (child.type === 'mvhd') Object.assign(facts, parseMvhd(await readPayload(bytes, child, 4096)));
    else if (child.type === 'meta')
      collectMeta(await readPayload(bytes, child, MAX_META_BYTES), child.payloadStart, items);
    else if (child.type === 'udta')
      collectUdta(await readPayload(bytes, child, MAX_META_BYTES), child.payloadStart, items);
  }
  const pick = (...names: string[]): string | null => {
    for (const name of names) {
      const value = cleanText(items.get(name));
      if (value !== null) return value;
    }
    return null;
  };
  const contentId = pick('com.apple.quicktime.content.identifier');
  facts.contentId = contentId !== null && /^[\w-]{8,64}$/.test(contentId) ? contentId.toUpperCase() : null;
  facts.date = parseDateText(pick('com.apple.quicktime.creationdate')) ?? parseDateText(pick('©day'));
  facts.coordinates = parseIso6709(pick('com.apple.quicktime.location.ISO6709')) ?? parseIso6709(pick('©xyz'));
  if (facts.coordinates === null) {
    facts.coordinates = parseIso6709(pick('loci'));
    facts.coordinatesFromLoci = facts.coordinates !== null;
  }
  facts.make = pick('com.apple.quicktime.make', '©mak');
  facts.model = pick('com.apple.quicktime.model', '©mod');
  return facts;
}

/** mvhd v0/v1: creation time (seconds since 1904, UTC) and duration / timescale. */
export function parseMvhd(payload: Uint8Array): Pick<VideoFacts, 'mvhdMs' | 'durationSeconds'> {
  const view = viewOf(payload);
  const version = payload[0];
  let created: number;
  let timescale: number;
  let duration: number;
  let unknownDuration: boolean;
  if (version === 1 && payload.length >= 32) {
    created = Number(view.getBigUint64(4));
    timescale = view.getUint32(20);
    const raw = view.getBigUint64(24);
    unknownDuration = raw === 0xffffffffffffffffn;
    duration = Number(raw);
  } else if (version === 0 && payload.length >= 20) {
    created = view.getUint32(4);
    timescale = view.getUint32(12);
    duration = view.getUint32(16);
    unknownDuration = duration === 0xffffffff;
  } else {
    throw new ParseProblem('corrupt_file', `unreadable mvhd (version ${version})`);
  }
  const mvhdMs = created === 0 ? null : (created - MAC_EPOCH_OFFSET_S) * 1000;
  const durationSeconds = timescale > 0 && !unknownDuration ? Math.round((duration / timescale) * 1000) / 1000 : null;
  return { mvhdMs: mvhdMs !== null && Number.isSafeInteger(mvhdMs) ? mvhdMs : null, durationSeconds };
}

/** QuickTime `meta` (plain box) or ISO `meta` (full box): `keys` names the `ilst` items. */
function collectMeta(payload: Uint8Array, base: number, items: Map<string, string>): void {
  // ISO meta starts with 4 bytes of version/flags; QuickTime meta starts straight with a child box.
  const isFullBox = !/^[a-z©]{4}$/i.test(ascii(payload, 4, 8).replace('\u00a9', '©')) && payload.length >= 12;
  const children = listBoxesIn(isFullBox ? payload.subarray(4) : payload, base + (isFullBox ? 4 : 0));
  const offset = base;
  const slice = (box: Box): Uint8Array => payload.subarray(box.payloadStart - offset, box.end - offset);
  const keysBox = children.find((b) => b.type === 'keys');
  const keys = keysBox ? parseKeys(slice(keysBox)) : [];
  const ilst = children.find((b) => b.type === 'ilst');
  if (ilst) collectIlst(slice(ilst), ilst.payloadStart, keys, items);
}

/** `keys`: version/flags, count, then (size, namespace, name) entries. */
export function parseKeys(payload: Uint8Array): string[] {
  const view = viewOf(payload);
  if (payload.length < 8) return [];
  const count = Math.min(view.getUint32(4), 4096);
  const keys: string[] = [];
  let pos = 8;
  for (let i = 0; i < count && pos + 8 <= payload.length; i++) {
    const size = view.getUint32(pos);
    if (size < 8 || pos + size > payload.length) break;
    keys.push(decoder.decode(payload.subarray(pos + 8, pos + size)));
    pos += size;
  }
  return keys;
}

/** `ilst` items: named by a 1-based index into `keys`, or by their own four-character type. */
function collectIlst(payload: Uint8Array, base: number, keys: string[], items: Map<string, string>): void {
  for (const item of listBoxesIn(payload, base)) {
    const body = payload.subarray(item.payloadStart - base, item.end - base);
    const index = viewOf(payload).getUint32(item.start - base + 4);
    const name = index >= 1 && index <= keys.length ? keys[index - 1]! : item.type;
    for (const data of listBoxesIn(body, item.payloadStart)) {
      if (data.type !== 'data') continue;
      const value = body.subarray(data.payloadStart - item.payloadStart, data.end - item.payloadStart);
      // 8 bytes of type indicator and locale; type 1 is UTF-8 text.
      if (value.length >= 8 && viewOf(value).getUint32(0) === 1 && !items.has(name)) {
        items.set(name, decoder.decode(value.subarray(8)));
      }
    }
  }
}

/** `udta`: QuickTime text atoms (`©xyz`, `©day`, ...: length, language, text) and a nested `meta`. */
function collectUdta(payload: Uint8Array, base: number, items: Map<string, string>): void {
  for (const box of listBoxesIn(payload, base)) {
    const body = payload.subarray(box.payloadStart - base, box.end - base);
    if (box.type === 'meta') collectMeta(body, box.payloadStart, items);
    else if (box.type === 'loci' && !items.has('loci')) {
      const point = parseLoci(body);
      if (point !== null) items.set('loci', point);
    } else if (box.type.charCodeAt(0) === 0xa9 && body.length >= 4 && !items.has(box.type.replace('\u00a9', '©'))) {
      const length = viewOf(body).getUint16(0);
      const text = 4 + length <= body.length ? decoder.decode(body.subarray(4, 4 + length)) : null;
      if (text !== null) items.set(box.type.replace('\u00a9', '©'), text);
    }
  }
}

/**
 * 3GPP `loci` (what ffmpeg writes for MP4 `location`): version/flags, language, a
 * NUL-terminated name, role, then longitude, latitude, altitude as 16.16 fixed point.
 * Returned as ISO 6709 text so one parser validates every video coordinate.
 */
export function parseLoci(body: Uint8Array): string | null {
  const nameEnd = body.indexOf(0, 6);
  const at = nameEnd + 2; // skip the NUL and the role byte
  if (nameEnd < 0 || at + 8 > body.length) return null;
  const view = viewOf(body);
  const lon = view.getInt32(at) / 65536;
  const lat = view.getInt32(at + 4) / 65536;
  const sign = (v: number): string => (v < 0 ? '-' : '+');
  return `${sign(lat)}${Math.abs(lat).toFixed(6).padStart(9, '0')}${sign(lon)}${Math.abs(lon).toFixed(6).padStart(10, '0')}/`;
}
