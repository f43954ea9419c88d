import { createRequire } from 'node:module';
import { ParseProblem } from './errors.js';

// Loaded on the first photo, not with the module: a thread that only meets videos never
// compiles it, and require() skips the CommonJS export scan an ES import makes of the bundle.
let exifrModule: typeof import('exifr') | null = null;
const exifr = (): typeof import('exifr') => (exifrModule ??= createRequire(import.meta.url)('exifr') as typeof import('exifr'));

/** EXIF tag ids camroll reads (numeric, so they work in any IFD, e.g. Canon CR3's CMT boxes). */
export const TAG = {
  Make: 0x010f,
  Model: 0x0110,
  DateTimeOriginal: 0x9003,
  DateTimeDigitized: 0x9004,
  OffsetTimeOriginal: 0x9011,
  OffsetTimeDigitized: 0x9012,
  SubSecTimeOriginal: 0x9291,
  SubSecTimeDigitized: 0x9292,
  LensModel: 0xa434,
  GPSLatitudeRef: 0x0001,
  GPSLatitude: 0x0002,
  GPSLongitudeRef: 0x0003,
  GPSLongitude: 0x0004,
  GPSTimeStamp: 0x0007,
  GPSDateStamp: 0x001d,
} as const;

/** Raw tag values by name; strings are as written (exifr trims them), rationals divided. */
export type ExifTags = Partial<Record<keyof typeof TAG, unknown>>;

const ALL_IDS = Object.values(TAG);
const GPS_IDS = [TAG.GPSLatitudeRef, TAG.GPSLatitude, TAG.GPSLongitudeRef, TAG.GPSLongitude, TAG.GPSTimeStamp, TAG.GPSDateStamp];

// Raw values: exifr's revived dates use the machine's zone, drop OffsetTimeOriginal and
// turn "0000:00:00" into 1899. Everything not needed is switched off.
const EXIFR_OPTIONS = {
  translateKeys: false,
  translateValues: false,
  reviveValues: false,
  sanitize: true,
  mergeOutput: false,
  ifd0: { pick: ALL_IDS },
  exif: { pick: ALL_IDS },
  gps: { pick: GPS_IDS },
  ifd1: false,
  interop: false,
  makerNote: false,
  userComment: false,
  xmp: false,
  icc: false,
  iptc: false,
  jfif: false,
  ihdr: false,
};

/**
 * Parses a complete TIFF structure (the payload of a JPEG APP1, a HEIF Exif item, a PNG
 * eXIf or WebP EXIF chunk, or a whole TIFF-based raw) with exifr, from memory only.
 * Throws ParseProblem(`corrupt_file`) when exifr cannot make sense of it.
 */
export async function parseTiff(tiff: Uint8Array): Promise<ExifTags> {
  const input = Buffer.from(tiff.buffer, tiff.byteOffset, tiff.byteLength);
  let output: unknown;
  try {
    output = await exifr().parse(input, EXIFR_OPTIONS);
  } catch (error) {
    throw new ParseProblem('corrupt_file', `unreadable EXIF: ${error instanceof Error ? error.message : String(error)}`);
  }
  const tags: ExifTags = {};
  if (output === null || typeof output !== 'object') return tags;
  const byId = new Map<number, unknown>();
  // ifd0 first, then exif and gps: a value in a more specific block wins.
  for (const block of ['ifd0', 'exif', 'gps']) {
    const values = (output as Record<string, unknown>)[block];
    if (values === null || typeof values !== 'object') continue;
    for (const [key, value] of Object.entries(values)) {
      const id = Number(key);
      if (Number.isInteger(id) && value !== undefined && value !== null) byId.set(id, value);
    }
  }
  for (const [name, id] of Object.entries(TAG) as [keyof typeof TAG, number][]) {
    if (byId.has(id)) tags[name] = byId.get(id);
  }
  return tags;
}

/** Merges tag sets; earlier sets win for a tag present in several. */
export function mergeTags(...sets: ExifTags[]): ExifTags {
  const out: ExifTags = {};
  for (const set of sets) {
    for (const [key, value] of Object.entries(set) as [keyof ExifTags, unknown][]) {
      if (out[key] === undefined && value !== undefined) out[key] = value;
    }
  }
  return out;
}
