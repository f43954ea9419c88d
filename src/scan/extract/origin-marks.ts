import type { OriginSignals } from '../evidence/origin.js';
import type { ExifTags } from './exif.js';

/**
 * The origin marks a file carries in its EXIF: iOS's screenshot comment and the content
 * identifier of Apple's MakerNote (a Live Photo's still shares it with its video). Bounded: the
 * values are read by tiff.ts within its value cap, and only their first bytes are looked at.
 */

const APPLE_HEADER = 'Apple iOS\u0000';
/** The Apple MakerNote's IFD starts after its header, version and byte order ("MM"). */
const APPLE_IFD_AT = 14;
const CONTENT_IDENTIFIER = 0x0011;
/** Apple's IFD holds tens of entries; past this many the block is not Apple's. */
const MAX_APPLE_ENTRIES = 256;
/** A content identifier is a UUID: 36 characters. */
const MAX_IDENTIFIER = 64;

/** The marks of one file's EXIF (only those present). */
export function exifOriginMarks(tags: ExifTags): Pick<OriginSignals, 'screenshot_comment' | 'content_id'> {
  const out: Pick<OriginSignals, 'screenshot_comment' | 'content_id'> = {};
  if (userCommentText(tags.UserComment) === 'Screenshot') out.screenshot_comment = true;
  const id = tags.MakerNote instanceof Uint8Array ? appleContentIdentifier(tags.MakerNote) : null;
  if (id !== null) out.content_id = id;
  return out;
}

/** UserComment: an 8-byte code ("ASCII", "UNICODE", or 8 NULs), then the text; null when it is not text. */
export function userCommentText(value: unknown): string | null {
  if (typeof value === 'string') return value.trim(); // written as ASCII by some tools
  if (!(value instanceof Uint8Array) || value.length < 8) return null;
  const code = String.fromCharCode(...value.subarray(0, 8)).replace(/\u0000+$/, '');
  const body = value.subarray(8, 8 + 256);
  if (code === 'UNICODE') return null; // no phone writes its screenshot mark so
  if (code !== 'ASCII' && code !== '') return null;
  const nul = body.indexOf(0);
  return new TextDecoder('latin1').decode(nul < 0 ? body : body.subarray(0, nul)).trim();
}

/**
 * Apple's MakerNote: "Apple iOS\0", a version, "MM", then a big-endian IFD whose value offsets
 * count from the MakerNote's start. Tag 0x0011 (ASCII) is the content identifier.
 */
export function appleContentIdentifier(note: Uint8Array): string | null {
  if (note.length < APPLE_IFD_AT + 2) return null;
  if (String.fromCharCode(...note.subarray(0, APPLE_HEADER.length)) !== APPLE_HEADER) return null;
  const view = new DataView(note.buffer, note.byteOffset, note.byteLength);
  const little = note[12] === 0x49; // "II"; Apple writes "MM"
  const count = view.getUint16(APPLE_IFD_AT, little);
  if (count > MAX_APPLE_ENTRIES) return null;
  for (let i = 0; i < count; i++) {
    const at = APPLE_IFD_AT + 2 + i * 12;
    if (at + 12 > note.length) return null;
    if (view.getUint16(at, little) !== CONTENT_IDENTIFIER || view.getUint16(at + 2, little) !== 2) continue;
    const n = view.getUint32(at + 4, little);
    if (n === 0 || n > MAX_IDENTIFIER) return null;
    const start = n <= 4 ? at + 8 : view.getUint32(at + 8, little);
    if (start + n > note.length) return null;
    const raw = note.subarray(start, start + n);
    const nul = raw.indexOf(0);
    const text = new TextDecoder('latin1').decode(nul < 0 ? raw : raw.subarray(0, nul)).trim();
    return /^[\w-]{8,64}$/.test(text) ? text.toUpperCase() : null;
  }
  return null;
}
