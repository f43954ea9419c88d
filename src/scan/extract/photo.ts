import type { ByteSource } from '../types.js';
import { memorySource } from './bytes.js';
import { ParseProblem } from './errors.js';
import type { ExifTags } from './exif.js';
import { readJpegMetadata } from './jpeg.js';
import { readTiff } from './tiff.js';
import type { ExtractionWarning } from './warnings.js';
import { warning } from './warnings.js';
import type { XmpData } from './xmp.js';
import { parseXmpPacket } from './xmp.js';

/** What a photo's own bytes say: EXIF tags, an embedded XMP packet, and what was skipped. */
export interface PhotoFacts {
  tags: ExifTags;
  xmp: XmpData | null;
  warnings: ExtractionWarning[];
}

/** Whether an XMP packet gave anything camroll uses. */
function saysSomething(xmp: XmpData | null): boolean {
  return xmp !== null && Object.values(xmp).some((value) => value !== null);
}

/**
 * Reads an embedded EXIF block (a TIFF structure in memory) and an XMP packet into facts.
 * An EXIF block that cannot be read at all is `corrupt_file` only when the XMP packet gave
 * nothing either: metadata already read is never lost to it, it becomes a warning.
 */
export async function embeddedFacts(
  tiff: Uint8Array | null,
  xmpText: string | null,
  warnings: ExtractionWarning[] = [],
): Promise<PhotoFacts> {
  const xmp = xmpText === null ? null : parseXmpPacket(xmpText, warnings);
  if (tiff === null) return { tags: {}, xmp, warnings };
  try {
    const read = await readTiff(memorySource(tiff));
    return { tags: read.tags, xmp, warnings: [...warnings, ...read.warnings] };
  } catch (error) {
    if (!(error instanceof ParseProblem) || error.code === 'read_error' || !saysSomething(xmp)) throw error;
    return { tags: {}, xmp, warnings: [...warnings, warning('skipped_ifd', `EXIF block skipped: ${error.message}`)] };
  }
}

/** JPEG: APP1 Exif and XMP segments. */
export async function readJpeg(bytes: ByteSource, start = 0, limit = bytes.size): Promise<PhotoFacts> {
  const found = await readJpegMetadata(bytes, start, limit);
  return embeddedFacts(found.tiff, found.xmp, found.warnings);
}

/**
 * TIFF, BigTIFF and TIFF-based raws (DNG, CR2, NEF, ARW, and ORF/RW2 whose magic number
 * differs): the metadata IFDs are read in place, entry by entry, never the image data. The
 * XMP packet of IFD0's tag 700 (what Lightroom and raw converters write) is read as the
 * file's embedded XMP.
 */
export async function readTiffBased(bytes: ByteSource): Promise<PhotoFacts> {
  const read = await readTiff(bytes, { wholeFile: true });
  const { XMLPacket: packet, ...tags } = read.tags;
  let text: string | null = null;
  if (packet instanceof Uint8Array) text = new TextDecoder().decode(packet);
  else if (typeof packet === 'string') text = packet;
  const warnings = [...read.warnings];
  return { tags, xmp: text === null ? null : parseXmpPacket(text, warnings), warnings };
}
