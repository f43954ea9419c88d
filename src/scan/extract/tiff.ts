import type { ByteSource } from '../types.js';
import { readRange, viewOf } from './bytes.js';
import { ParseProblem } from './errors.js';
import type { ExifTags } from './exif.js';
import { TAG } from './exif.js';
import type { ExtractionWarning } from './warnings.js';
import { warning } from './warnings.js';

// TIFF 6.0 field types (1-13) and BigTIFF's 64-bit ones (16-18): bytes per value.
const TYPE_SIZES: Readonly<Record<number, number>> = {
  1: 1,
  2: 1,
  3: 2,
  4: 4,
  5: 8,
  6: 1,
  7: 1,
  8: 2,
  9: 4,
  10: 8,
  11: 4,
  12: 8,
  13: 4,
  16: 8,
  17: 8,
  18: 8,
};
const EXIF_IFD = 0x8769;
const GPS_IFD = 0x8825;
/** Real IFDs hold tens of entries; a count past this is garbage, not a table to read. */
const MAX_ENTRIES = 4096;
/** The values camroll reads are short strings and a few rationals... */
const MAX_VALUE_BYTES = 64 * 1024;
/** ...and an XMP packet, which raw converters fill with edit history. */
const MAX_XMP_BYTES = 2 * 1024 * 1024;
const XML_PACKET = 0x02bc;

const WANTED = new Map<number, keyof typeof TAG>();
for (const [name, id] of Object.entries(TAG) as [keyof typeof TAG, number][]) WANTED.set(id, name);
const utf8 = new TextDecoder('utf-8', { fatal: true });
const latin1 = new TextDecoder('latin1');

/** The tags of one TIFF structure, and what had to be skipped to get them. */
export interface TiffRead {
  tags: ExifTags;
  warnings: ExtractionWarning[];
}

export interface TiffReadOptions {
  /** The structure is the whole file (a TIFF-based raw): data past its end means a cut file. */
  wholeFile?: boolean;
}

/** Layout facts from the header: byte order and classic (32-bit) or BigTIFF (64-bit) offsets. */
interface Layout {
  little: boolean;
  big: boolean;
}

/**
 * Reads IFD0, the Exif IFD and the GPS IFD of a TIFF structure (a TIFF-based file, or the
 * payload of a JPEG APP1, HEIF Exif item, PNG eXIf or WebP EXIF chunk), classic or BigTIFF,
 * entry by entry: an entry with an unknown type or a value outside the data is skipped, an
 * IFD that cannot be read is skipped, and each skip is named in `warnings`. Only a header
 * that is no TIFF at all, or an unreadable IFD0, throws (ParseProblem `corrupt_file`).
 * Tables and values beyond `bytes.head` are fetched with positioned reads.
 */
export async function readTiff(bytes: ByteSource, options: TiffReadOptions = {}): Promise<TiffRead> {
  const layout = await readHeader(bytes);
  const warnings: ExtractionWarning[] = [];
  const byId = new Map<number, unknown>();
  let ifd0: Map<number, unknown>;
  try {
    ifd0 = await readIfd(bytes, await readOffsetAt(bytes, layout.big ? 8 : 4, layout), 'IFD0', layout, warnings);
  } catch (error) {
    if (!(error instanceof ParseProblem) || error.code === 'read_error') throw error;
    const code = error.code === 'truncated_file' && options.wholeFile ? 'truncated_file' : 'corrupt_file';
    throw new ParseProblem(code, `unreadable EXIF: ${error.message}`);
  }
  // IFD0 first, then Exif and GPS: a value in a more specific IFD wins.
  for (const [id, value] of ifd0) byId.set(id, value);
  for (const [pointer, name] of [
    [EXIF_IFD, 'Exif IFD'],
    [GPS_IFD, 'GPS IFD'],
  ] as const) {
    const offset = ifd0.get(pointer);
    if (typeof offset !== 'number' || offset === 0) continue;
    try {
      for (const [id, value] of await readIfd(bytes, offset, name, layout, warnings)) byId.set(id, value);
    } catch (error) {
      if (!(error instanceof ParseProblem) || error.code === 'read_error') throw error;
      warnings.push(warning('skipped_ifd', `${name} at ${offset} skipped: ${error.message}`));
    }
  }
  const tags: ExifTags = {};
  for (const [id, value] of byId) {
    const name = WANTED.get(id);
    if (name) tags[name] = value;
  }
  return { tags, warnings };
}

async function readHeader(bytes: ByteSource): Promise<Layout> {
  if (bytes.size < 8) throw new ParseProblem('corrupt_file', 'unreadable EXIF: no TIFF header');
  const header = await readRange(bytes, 0, Math.min(16, bytes.size));
  const order = String.fromCharCode(header[0]!, header[1]!);
  if (order !== 'II' && order !== 'MM')
    throw new ParseProblem('corrupt_file', 'unreadable EXIF: no TIFF byte-order mark');
  const little = order === 'II';
  const view = viewOf(header);
  // The magic number is not checked: Olympus and Panasonic raws use their own TIFF layout ids.
  if (view.getUint16(2, little) !== 43) return { little, big: false };
  // BigTIFF: offset size 8, a reserved 0, then a 64-bit offset of IFD0.
  if (header.length < 16 || view.getUint16(4, little) !== 8 || view.getUint16(6, little) !== 0) {
    throw new ParseProblem('corrupt_file', 'unreadable EXIF: malformed BigTIFF header');
  }
  return { little, big: true };
}

async function readOffsetAt(bytes: ByteSource, at: number, layout: Layout): Promise<number> {
  const data = await readRange(bytes, at, layout.big ? 8 : 4);
  return layout.big ? Number(viewOf(data).getBigUint64(0, layout.little)) : viewOf(data).getUint32(0, layout.little);
}

/** The wanted entries of one IFD (and its Exif/GPS pointers) by tag id; bad entries are skipped with a warning. */
async function readIfd(
  bytes: ByteSource,
  offset: number,
  name: string,
  layout: Layout,
  warnings: ExtractionWarning[],
): Promise<Map<number, unknown>> {
  const { little, big } = layout;
  if (offset < 8) throw new ParseProblem('corrupt_file', `${name} offset ${offset} points into the header`);
  const countBytes = await readRange(bytes, offset, big ? 8 : 2);
  const count = big ? Number(viewOf(countBytes).getBigUint64(0, little)) : viewOf(countBytes).getUint16(0, little);
  if (count > MAX_ENTRIES) throw new ParseProblem('corrupt_file', `${name} claims ${count} entries`);
  const entrySize = big ? 20 : 12;
  const tableStart = offset + countBytes.length;
  // A table cut by the end of the data keeps the entries that are there.
  const available = Math.min(count, Math.floor((bytes.size - tableStart) / entrySize));
  if (available < count)
    warnings.push(
      warning('skipped_entry', `${name}: ${count - available} of ${count} entries lie past the end of the data`),
    );
  const table = viewOf(await readRange(bytes, tableStart, Math.max(available, 0) * entrySize));
  const out = new Map<number, unknown>();
  for (let i = 0; i < available; i++) {
    const base = i * entrySize;
    const tag = table.getUint16(base, little);
    if (!WANTED.has(tag) && tag !== EXIF_IFD && tag !== GPS_IFD) continue;
    const type = table.getUint16(base + 2, little);
    const n = big ? Number(table.getBigUint64(base + 4, little)) : table.getUint32(base + 4, little);
    const size = TYPE_SIZES[type];
    const label = `${name} entry 0x${tag.toString(16).padStart(4, '0')}`;
    if (size === undefined) {
      warnings.push(warning('skipped_entry', `${label} has TIFF type ${type}; skipped`));
      continue;
    }
    const total = size * n;
    const inline = total <= (big ? 8 : 4);
    const valueAt = inline
      ? tableStart + base + (big ? 12 : 8)
      : big
        ? Number(table.getBigUint64(base + 12, little))
        : table.getUint32(base + 8, little);
    if (n === 0 || total > (tag === XML_PACKET ? MAX_XMP_BYTES : MAX_VALUE_BYTES) || valueAt + total > bytes.size) {
      warnings.push(
        warning('skipped_entry', `${label}: ${n} values of type ${type} at ${valueAt} lie outside the data; skipped`),
      );
      continue;
    }
    const raw = await readRange(bytes, valueAt, total);
    out.set(tag, decodeValue(raw, type, n, little));
  }
  return out;
}

/** One entry's value: text for ASCII, a number for one value, an array for several (rationals divided). */
function decodeValue(raw: Uint8Array, type: number, n: number, little: boolean): unknown {
  if (type === 2) return asciiText(raw);
  if (type === 1 || type === 7) return n === 1 ? raw[0] : raw;
  const view = viewOf(raw);
  const size = TYPE_SIZES[type]!;
  const values: number[] = [];
  for (let i = 0; i < n; i++) {
    const at = i * size;
    switch (type) {
      case 3:
        values.push(view.getUint16(at, little));
        break;
      case 4:
      case 13:
        values.push(view.getUint32(at, little));
        break;
      case 5:
        values.push(view.getUint32(at, little) / view.getUint32(at + 4, little));
        break;
      case 6:
        values.push(view.getInt8(at));
        break;
      case 8:
        values.push(view.getInt16(at, little));
        break;
      case 9:
        values.push(view.getInt32(at, little));
        break;
      case 10:
        values.push(view.getInt32(at, little) / view.getInt32(at + 4, little));
        break;
      case 11:
        values.push(view.getFloat32(at, little));
        break;
      case 12:
        values.push(view.getFloat64(at, little));
        break;
      case 17:
        values.push(Number(view.getBigInt64(at, little)));
        break;
      default:
        values.push(Number(view.getBigUint64(at, little))); // 16 LONG8, 18 IFD8
    }
  }
  return n === 1 ? values[0] : values;
}

/** EXIF ASCII ends at the first NUL; UTF-8 when it is valid UTF-8 (phones write it), else Latin-1. */
function asciiText(raw: Uint8Array): string {
  const nul = raw.indexOf(0);
  const text = nul < 0 ? raw : raw.subarray(0, nul);
  try {
    return utf8.decode(text);
  } catch {
    return latin1.decode(text);
  }
}
