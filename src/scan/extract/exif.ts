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
  /** 8 bytes naming the character code, then the text (iOS writes "Screenshot" into every screenshot). */
  UserComment: 0x9286,
  /** The camera maker's own block; Apple's holds the Live Photo content identifier. */
  MakerNote: 0x927c,
  /** XMP packet (tag 700) in a TIFF or DNG's IFD0: BYTE/UNDEFINED, sometimes ASCII. */
  XMLPacket: 0x02bc,
} as const;

/** Raw tag values by name (see tiff.ts): ASCII cut at its NUL, one number, or an array with rationals divided. */
export type ExifTags = Partial<Record<keyof typeof TAG, unknown>>;

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
