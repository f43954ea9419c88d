import type { ByteSource } from '../types.js';
import { ascii, readRange, viewOf } from './bytes.js';
import { ParseProblem } from './errors.js';
import type { ExtractionWarning } from './warnings.js';
import { warning } from './warnings.js';

const MAX_SEGMENTS = 512;
const EXIF_ID = 'Exif\u0000\u0000';
const XMP_ID = 'http://ns.adobe.com/xap/1.0/\u0000';
const XMP_EXTENSION_ID = 'http://ns.adobe.com/xmp/extension/';
/** A wrong segment length is tried nearby first: writers get it wrong by a few bytes. */
const NEAR_WINDOW = 16;
/** Then the next marker is searched for this far ahead, as libjpeg's next_marker does. */
const SCAN_WINDOW = 64 * 1024;

/** Where a JPEG keeps its metadata: the TIFF payload of APP1 Exif and the XMP packet text. */
export interface JpegMetadata {
  tiff: Uint8Array | null;
  xmp: string | null;
  warnings: ExtractionWarning[];
}

/**
 * Walks the JPEG marker segments up to the start of scan, collecting the first APP1 Exif
 * payload (a TIFF structure) and the first XMP packet. A segment whose length does not land
 * on a marker is resynchronised to the nearest marker (a warning says so). Once metadata
 * was found, a cut or a garbled tail ends the walk with a warning instead of an error.
 * Segments beyond the head are read through `bytes`; `start` lets RAF's preview be read in place.
 */
export async function readJpegMetadata(bytes: ByteSource, start = 0, limit = bytes.size): Promise<JpegMetadata> {
  const found: JpegMetadata = { tiff: null, xmp: null, warnings: [] };
  const stop = (problem: ParseProblem): JpegMetadata => {
    if (found.tiff === null && found.xmp === null) throw problem;
    found.warnings.push(warning('skipped_segment', `${problem.message}; the metadata before it was kept`));
    return found;
  };
  let pos = start + 2;
  for (let n = 0; n < MAX_SEGMENTS; n++) {
    if (pos + 2 > limit) return stop(new ParseProblem('truncated_file', 'JPEG ends before its image data'));
    const header = await readRange(bytes, pos, Math.min(4, limit - pos));
    if (header[0] !== 0xff) return stop(new ParseProblem('corrupt_file', `JPEG marker expected at ${pos}`));
    const marker = header[1]!;
    if (marker === 0xff) {
      pos += 1;
      continue;
    } // fill byte
    if (marker === 0xd8 || marker === 0x01 || (marker >= 0xd0 && marker <= 0xd7)) {
      pos += 2;
      continue;
    }
    if (marker === 0xda || marker === 0xd9) return found; // metadata is over
    if (header.length < 4) return stop(new ParseProblem('truncated_file', 'JPEG ends inside a segment header'));
    const length = viewOf(header).getUint16(2);
    if (length < 2) return stop(new ParseProblem('corrupt_file', `JPEG segment of length ${length} at ${pos}`));
    let end = pos + 2 + length;
    if (end < limit && !(await isMarker(bytes, end, limit))) {
      // No marker anywhere near: the segment is taken as it claims, and what follows fails below.
      const next = await resync(bytes, end, pos + 4, limit);
      if (next !== null) {
        found.warnings.push(
          warning(
            'skipped_segment',
            `JPEG segment 0xff${marker.toString(16)} at ${pos} claims ${length} bytes; went on at the marker at ` +
              `${next}`,
          ),
        );
        end = next;
      }
    }
    if (end > limit) {
      const where =
        limit === bytes.size ? `the file (${bytes.size} bytes)` : `the embedded JPEG (${limit - start} bytes)`;
      return stop(
        new ParseProblem('truncated_file', `data at ${pos + 4}+${end - pos - 4} lies past the end of ${where}`),
      );
    }
    if (marker === 0xe1 && (found.tiff === null || found.xmp === null)) {
      const body = await readRange(bytes, pos + 4, end - pos - 4);
      if (found.tiff === null && ascii(body, 0, 6) === EXIF_ID) found.tiff = body.subarray(6);
      else if (found.xmp === null && ascii(body, 0, XMP_ID.length) === XMP_ID) {
        found.xmp = new TextDecoder().decode(body.subarray(XMP_ID.length));
      } else if (found.xmp === null) {
        const packetAt = nonstandardXmpStart(body);
        if (packetAt !== null) {
          found.xmp = new TextDecoder().decode(body.subarray(packetAt));
          const shown = (c: string): string => (c === '\u0000' ? '\\0' : '?');
          const header = ascii(body, 0, Math.min(packetAt, 40)).replace(/[^\x20-\x7e]/g, shown);
          const message = `APP1 XMP segment at ${pos} has the non-standard header '${header}'; read all the same`;
          found.warnings.push(warning('nonstandard_header', message));
        }
      }
    }
    pos = end;
  }
  return found;
}

/**
 * Where the packet starts in an APP1 segment that holds XMP behind a non-standard header
 * (`XMP\0://ns.adobe.com/xap/1.0/\0` and the like, which exiftool also reads), or null.
 * Extended XMP (`http://ns.adobe.com/xmp/extension/`) is a continuation, never a packet.
 */
function nonstandardXmpStart(body: Uint8Array): number | null {
  const start = ascii(body, 0, 4);
  if (start !== 'XMP\u0000' && start !== 'http') return null;
  if (ascii(body, 0, XMP_EXTENSION_ID.length) === XMP_EXTENSION_ID) return null;
  const head = ascii(body, 0, 256);
  const at = [head.indexOf('<?xpacket'), head.indexOf('<x:xmpmeta'), head.indexOf('<rdf:RDF')].filter((i) => i >= 0);
  return at.length === 0 ? null : Math.min(...at);
}

/** Whether a marker (0xff and a marker byte, or a fill byte) is at `at`: a claimed end is taken at its word. */
async function isMarker(bytes: ByteSource, at: number, limit: number): Promise<boolean> {
  if (at + 2 > limit) return false;
  const [ff, marker] = await readRange(bytes, at, 2);
  return ff === 0xff && (marker! >= 0xc0 || marker === 0x01);
}

/**
 * For a resync, where any 0xff byte may be data: whether a marker segment (or the start of scan, or the end of image)
 * begins at `at`: 0xff,
 * a marker byte, and for a segment with a length, a length that lands on the next 0xff.
 */
async function isSegmentStart(bytes: ByteSource, at: number, limit: number): Promise<boolean> {
  if (at < 0 || at + 2 > limit) return false;
  const head = await readRange(bytes, at, Math.min(4, limit - at));
  if (head[0] !== 0xff) return false;
  const marker = head[1]!;
  if (marker === 0xd9 || marker === 0xff) return true; // EOI, or fill bytes before a marker
  if (marker < 0xc0 || (marker >= 0xd0 && marker <= 0xd8)) return false;
  if (head.length < 4) return false;
  const next = at + 2 + viewOf(head).getUint16(2);
  // Scan data follows SOS, not a marker; a length past the end is a cut file, said later.
  if (marker === 0xda || next + 1 > limit) return true;
  return (await readRange(bytes, next, 1))[0] === 0xff;
}

/** The segment start nearest to a wrong end (never before `floor`), else the next one ahead. */
async function resync(bytes: ByteSource, claimed: number, floor: number, limit: number): Promise<number | null> {
  for (let d = 1; d <= NEAR_WINDOW; d++) {
    if (claimed - d >= floor && (await isSegmentStart(bytes, claimed - d, limit))) return claimed - d;
    if (await isSegmentStart(bytes, claimed + d, limit)) return claimed + d;
  }
  const from = Math.max(floor, claimed - NEAR_WINDOW);
  const window = await readRange(bytes, from, Math.max(0, Math.min(SCAN_WINDOW, limit - from)));
  for (let i = window.indexOf(0xff); i >= 0; i = window.indexOf(0xff, i + 1)) {
    if (await isSegmentStart(bytes, from + i, limit)) return from + i;
  }
  return null;
}
