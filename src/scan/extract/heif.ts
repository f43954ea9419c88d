import type { ByteSource } from '../types.js';
import type { Box } from './bmff.js';
import { listBoxes, listBoxesIn, readPayload, whole } from './bmff.js';
import { ascii, memorySource, readRange, viewOf } from './bytes.js';
import { ParseProblem } from './errors.js';
import type { ExifTags } from './exif.js';
import { mergeTags } from './exif.js';
import type { PhotoFacts } from './photo.js';
import { embeddedFacts } from './photo.js';
import { readTiff } from './tiff.js';
import type { ExtractionWarning } from './warnings.js';
import { warning } from './warnings.js';

const MAX_META_BYTES = 4 * 1024 * 1024;
const MAX_ITEM_BYTES = 4 * 1024 * 1024;
const CANON_UUID = '85c0b687820f11e08111f4ce462b6a48';

interface ItemInfo {
  id: number;
  type: string;
  contentType: string;
}
interface Extent {
  offset: number;
  length: number;
}

/** HEIC/HEIF/AVIF: the `Exif` item (and an XMP `mime` item) located through `iinf` and `iloc`. */
export async function readHeif(bytes: ByteSource, topLevel: Box[]): Promise<PhotoFacts> {
  const meta = topLevel.find((b) => b.type === 'meta');
  if (!meta) return { tags: {}, xmp: null, warnings: [] };
  const payload = await readPayload(bytes, meta, MAX_META_BYTES);
  const children = listBoxesIn(payload.subarray(4), meta.payloadStart + 4); // meta is a full box
  const body = (box: Box): Uint8Array =>
    payload.subarray(box.payloadStart - meta.payloadStart, box.end - meta.payloadStart);
  const iinf = children.find((b) => b.type === 'iinf');
  const iloc = children.find((b) => b.type === 'iloc');
  const idat = children.find((b) => b.type === 'idat');
  if (!iinf || !iloc) return { tags: {}, xmp: null, warnings: [] };
  const infos = parseIinf(body(iinf), iinf.payloadStart);
  const locations = parseIloc(body(iloc));
  const readItem = async (id: number): Promise<Uint8Array | null> => {
    const loc = locations.get(id);
    if (!loc) return null;
    const parts: Uint8Array[] = [];
    let total = 0;
    for (const extent of loc.extents) {
      total += extent.length;
      if (total > MAX_ITEM_BYTES) throw new ParseProblem('corrupt_file', `item ${id} is too large for metadata`);
      if (loc.method === 1) {
        if (!idat) throw new ParseProblem('corrupt_file', `item ${id} refers to a missing idat box`);
        const start = idat.payloadStart - meta.payloadStart + extent.offset;
        parts.push(payload.subarray(start, start + extent.length));
      } else parts.push(await readRange(bytes, extent.offset, extent.length));
    }
    return parts.length === 1 ? parts[0]! : Buffer.concat(parts);
  };
  let tiff: Uint8Array | null = null;
  const exifItem = infos.find((i) => i.type === 'Exif');
  const exif = exifItem ? await readItem(exifItem.id) : null;
  if (exif && exif.length > 4) {
    // The item starts with the offset of the TIFF header after these 4 bytes (usually past "Exif\0\0").
    const skip = 4 + viewOf(exif).getUint32(0);
    if (skip < exif.length) tiff = exif.subarray(skip);
  }
  const xmpItem = infos.find((i) => i.type === 'mime' && /rdf\+xml/i.test(i.contentType));
  const xmp = xmpItem ? await readItem(xmpItem.id) : null;
  return embeddedFacts(tiff, xmp ? new TextDecoder().decode(xmp) : null);
}

/** `iinf` entries (`infe` version 2 and 3): item id, type and MIME content type. */
function parseIinf(payload: Uint8Array, base: number): ItemInfo[] {
  const version = payload[0];
  const entriesStart = version === 0 ? 6 : 8;
  const infos: ItemInfo[] = [];
  for (const infe of listBoxesIn(payload.subarray(entriesStart), base + entriesStart)) {
    if (infe.type !== 'infe') continue;
    const body = payload.subarray(infe.payloadStart - base, infe.end - base);
    const v = body[0]!;
    if (v < 2 || body.length < 12) continue;
    const view = viewOf(body);
    const id = v === 2 ? view.getUint16(4) : view.getUint32(4);
    const typeAt = v === 2 ? 8 : 10;
    const type = ascii(body, typeAt, typeAt + 4);
    let contentType = '';
    if (type === 'mime') {
      const rest = body.subarray(typeAt + 4);
      const nameEnd = rest.indexOf(0);
      const ctStart = nameEnd + 1;
      const ctEnd = rest.indexOf(0, ctStart);
      contentType = ascii(rest, ctStart, ctEnd < 0 ? rest.length : ctEnd);
    }
    infos.push({ id, type, contentType });
  }
  return infos;
}

/** `iloc` versions 0-2: each item's construction method and extents. */
function parseIloc(payload: Uint8Array): Map<number, { method: number; extents: Extent[] }> {
  const view = viewOf(payload);
  const version = payload[0]!;
  const offsetSize = payload[4]! >> 4;
  const lengthSize = payload[4]! & 0x0f;
  const baseOffsetSize = payload[5]! >> 4;
  const indexSize = version === 1 || version === 2 ? payload[5]! & 0x0f : 0;
  let pos = 6;
  const read = (size: number): number => {
    if (pos + size > payload.length) throw new ParseProblem('corrupt_file', 'iloc box is cut short');
    let value = 0;
    if (size === 8) value = Number(view.getBigUint64(pos));
    else if (size === 4) value = view.getUint32(pos);
    else if (size === 2) value = view.getUint16(pos);
    else if (size !== 0) throw new ParseProblem('corrupt_file', `iloc field size ${size}`);
    pos += size;
    return value;
  };
  const count = version < 2 ? read(2) : read(4);
  const items = new Map<number, { method: number; extents: Extent[] }>();
  for (let i = 0; i < Math.min(count, 65_536); i++) {
    const id = version < 2 ? read(2) : read(4);
    const method = version === 1 || version === 2 ? read(2) & 0x0f : 0;
    read(2); // data_reference_index
    const baseOffset = read(baseOffsetSize);
    const extentCount = read(2);
    const extents: Extent[] = [];
    for (let e = 0; e < extentCount; e++) {
      if (indexSize > 0) read(indexSize);
      const offset = baseOffset + read(offsetSize);
      extents.push({ offset, length: read(lengthSize) });
    }
    items.set(id, { method, extents });
  }
  return items;
}

/** Canon CR3: the `moov/uuid` box holds CMT1 (IFD0), CMT2 (Exif IFD) and CMT4 (GPS IFD), each a TIFF. */
export async function readCr3(bytes: ByteSource, topLevel: Box[]): Promise<PhotoFacts> {
  const moov = topLevel.find((b) => b.type === 'moov');
  if (!moov) throw new ParseProblem('corrupt_file', 'CR3 without a moov box');
  whole(moov);
  for (const child of await listBoxes(bytes, moov.payloadStart, moov.end)) {
    if (child.type !== 'uuid') continue;
    const id = await readRange(bytes, child.payloadStart, 16);
    if (Buffer.from(id).toString('hex') !== CANON_UUID) continue;
    const sets: ExifTags[] = [];
    const warnings: ExtractionWarning[] = [];
    for (const cmt of await listBoxes(bytes, child.payloadStart + 16, child.end)) {
      if (cmt.type === 'CMT1' || cmt.type === 'CMT2' || cmt.type === 'CMT4') {
        try {
          const read = await readTiff(memorySource(await readPayload(bytes, cmt, MAX_META_BYTES)));
          sets.push(read.tags);
          warnings.push(...read.warnings);
        } catch (error) {
          // One unreadable CMT box (each is a TIFF of its own) leaves the others readable.
          if (!(error instanceof ParseProblem) || error.code === 'read_error') throw error;
          warnings.push(warning('skipped_ifd', `CR3 ${cmt.type} skipped: ${error.message}`));
        }
      }
    }
    return { tags: mergeTags(...sets), xmp: null, warnings };
  }
  return { tags: {}, xmp: null, warnings: [] };
}
