import type { ByteSource } from '../types.js';
import { readRange } from './bytes.js';
import type { ExifTags } from './exif.js';
import { parseTiff } from './exif.js';
import { readJpegMetadata } from './jpeg.js';
import { tiffMetadataSpan } from './tiff-span.js';
import type { XmpData } from './xmp.js';
import { parseXmp } from './xmp.js';

/** What a photo's own bytes say: EXIF tags and an embedded XMP packet. */
export interface PhotoFacts {
  tags: ExifTags;
  xmp: XmpData | null;
}

/** JPEG: APP1 Exif and XMP segments. */
export async function readJpeg(bytes: ByteSource, start = 0, limit = bytes.size): Promise<PhotoFacts> {
  const found = await readJpegMetadata(bytes, start, limit);
  return {
    tags: found.tiff ? await parseTiff(found.tiff) : {},
    xmp: found.xmp === null ? null : parseXmp(found.xmp),
  };
}

/**
 * TIFF and TIFF-based raws (DNG, CR2, NEF, ARW, and ORF/RW2 whose magic number differs):
 * only the prefix holding the metadata IFDs is read and parsed.
 */
export async function readTiffBased(bytes: ByteSource, patchMagic: boolean): Promise<PhotoFacts> {
  const span = await tiffMetadataSpan(bytes);
  let tiff = await readRange(bytes, 0, span);
  if (patchMagic) {
    // Olympus (IIRO/MMOR) and Panasonic (IIU\0) use TIFF layout under their own magic number.
    tiff = Uint8Array.from(tiff);
    if (tiff[0] === 0x49) { tiff[2] = 0x2a; tiff[3] = 0x00; } else { tiff[2] = 0x00; tiff[3] = 0x2a; }
  }
  return { tags: await parseTiff(tiff), xmp: null };
}
