import type { ByteSource } from '../types.js';
import { ascii, readRange, viewOf } from './bytes.js';
import { ParseProblem } from './errors.js';

const MAX_SEGMENTS = 512;
const EXIF_ID = 'Exif\u0000\u0000';
const XMP_ID = 'http://ns.adobe.com/xap/1.0/\u0000';

/** Where a JPEG keeps its metadata: the TIFF payload of APP1 Exif and the XMP packet text. */
export interface JpegMetadata {
  tiff: Uint8Array | null;
  xmp: string | null;
}

/**
 * Walks the JPEG marker segments up to the start of scan, collecting the first APP1 Exif
 * payload (a TIFF structure) and the first XMP packet. Segments beyond the head are read
 * through `bytes`; `start` lets RAF's embedded preview be read in place.
 */
export async function readJpegMetadata(bytes: ByteSource, start = 0, limit = bytes.size): Promise<JpegMetadata> {
  const found: JpegMetadata = { tiff: null, xmp: null };
  let pos = start + 2;
  let reachedScan = false;
  for (let n = 0; n < MAX_SEGMENTS && !reachedScan; n++) {
    if (pos + 2 > limit) throw new ParseProblem('truncated_file', 'JPEG ends before its image data');
    const header = await readRange(bytes, pos, Math.min(4, limit - pos));
    if (header[0] !== 0xff) throw new ParseProblem('corrupt_file', `JPEG marker expected at ${pos}`);
    const marker = header[1]!;
    if (marker === 0xff) { pos += 1; continue; } // fill byte
    if (marker === 0xd8 || marker === 0x01 || (marker >= 0xd0 && marker <= 0xd7)) { pos += 2; continue; }
    if (marker === 0xda || marker === 0xd9) { reachedScan = true; break; } // metadata is over
    if (header.length < 4) throw new ParseProblem('truncated_file', 'JPEG ends inside a segment header');
    const length = viewOf(header).getUint16(2);
    if (length < 2) throw new ParseProblem('corrupt_file', `JPEG segment of length ${length} at ${pos}`);
    if (marker === 0xe1 && (found.tiff === null || found.xmp === null)) {
      const body = await readRange(bytes, pos + 4, length - 2);
      if (found.tiff === null && ascii(body, 0, 6) === EXIF_ID) found.tiff = body.subarray(6);
      else if (found.xmp === null && ascii(body, 0, XMP_ID.length) === XMP_ID) {
        found.xmp = new TextDecoder().decode(body.subarray(XMP_ID.length));
      }
    }
    pos += 2 + length;
  }
  return found;
}
