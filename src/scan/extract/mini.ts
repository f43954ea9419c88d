import { inflateRawSync, inflateSync } from 'node:zlib';
import type { ByteSource } from '../types.js';
import type { Box } from './bmff.js';
import { whole } from './bmff.js';
import { ascii, readRange, viewOf } from './bytes.js';
import { ParseProblem } from './errors.js';
import type { PhotoFacts } from './photo.js';
import { embeddedFacts } from './photo.js';

/** The bit-packed header is a few dozen bytes; HDR metadata adds at most a hundred or so. */
const HEADER_READ = 512;
const MAX_METADATA_BYTES = 4 * 1024 * 1024;

/** Where the low-overhead file keeps its Exif and XMP chunks, and whether they are deflated. */
export interface MiniLayout {
  exif: { offset: number; length: number } | null;
  xmp: { offset: number; length: number } | null;
  compressed: boolean;
}

/** Reads `n` bits (n <= 32) at a time, most significant first; past the end is `corrupt_file`. */
class Bits {
  private pos = 0;

  constructor(private readonly data: Uint8Array) {}

  read(n: number): number {
    let value = 0;
    for (let i = 0; i < n; i++) {
      const byte = this.data[this.pos >> 3];
      if (byte === undefined) throw new ParseProblem('corrupt_file', 'mini box header is cut short');
      value = value * 2 + ((byte >> (7 - (this.pos & 7))) & 1);
      this.pos++;
    }
    return value;
  }

  flag(): boolean {
    return this.read(1) === 1;
  }

  skip(n: number): void {
    this.pos += n;
    if (this.pos > this.data.length * 8) throw new ParseProblem('corrupt_file', 'mini box header is cut short');
  }

  /** Bytes consumed once the header ends (it is padded to a byte boundary). */
  byteLength(): number {
    return Math.ceil(this.pos / 8);
  }
}

/** The HDR fields (clli, mdcv, cclv, amve, reve, ndwt) of the main image or the tone map: skipped. */
function skipHdrProperties(bits: Bits): void {
  const [clli, mdcv, cclv, amve, reve, ndwt] = Array.from({ length: 6 }, () => bits.flag());
  if (clli) bits.skip(32);
  if (mdcv) bits.skip(6 * 16 + 2 * 16 + 2 * 32);
  if (cclv) {
    bits.skip(2);
    const [primaries, min, max, avg] = [bits.flag(), bits.flag(), bits.flag(), bits.flag()];
    bits.skip(2);
    bits.skip((primaries ? 6 * 32 : 0) + (min ? 32 : 0) + (max ? 32 : 0) + (avg ? 32 : 0));
  }
  if (amve) bits.skip(32 + 16 + 16);
  if (reve) bits.skip(32 + 16 + 16 + 32 + 16 + 16);
  if (ndwt) bits.skip(32);
}

/**
 * Parses the `mini` box payload's bit-packed header (ISO/IEC 23008-12 2nd edition, the
 * low-overhead image file format) far enough to know where the Exif and XMP chunks lie:
 * they come last, after the codec configurations, the ICC profile, the gain map and the
 * coded image data, whose sizes the header gives. `payloadStart` is the payload's file offset.
 */
export function parseMiniHeader(header: Uint8Array, payloadStart: number): MiniLayout {
  const bits = new Bits(header);
  bits.read(2); // version
  const explicitCodecTypes = bits.flag();
  const float = bits.flag();
  bits.flag(); // full range
  const alpha = bits.flag();
  const explicitCicp = bits.flag();
  const hdr = bits.flag();
  const icc = bits.flag();
  const exif = bits.flag();
  const xmp = bits.flag();
  const chroma = bits.read(2);
  bits.read(3); // orientation
  const large = bits.flag();
  bits.skip(large ? 30 : 14); // width, height
  if (chroma === 1 || chroma === 2) bits.skip(1);
  if (chroma === 1) bits.skip(1);
  if (float) bits.skip(2);
  else if (bits.flag()) bits.skip(3); // high bit depth
  if (alpha) bits.skip(1); // premultiplied
  if (explicitCicp) bits.skip(24);
  if (explicitCodecTypes) bits.skip(64);
  let gainmap = false;
  let tmapIcc = false;
  if (hdr) {
    gainmap = bits.flag();
    if (gainmap) {
      if (!bits.flag()) bits.skip(large ? 30 : 14); // gain map dimensions, when not the main image's
      bits.skip(8 + 1); // matrix coefficients, full range
      const gainmapChroma = bits.read(2);
      if (gainmapChroma === 1 || gainmapChroma === 2) bits.skip(1);
      if (gainmapChroma === 1) bits.skip(1);
      // Each flag is the next bit: read in turn, not one condition tested twice.
      const floatDepth = bits.flag();
      if (floatDepth)
        bits.skip(2); // float bit depth
      else {
        const highDepth = bits.flag();
        if (highDepth) bits.skip(3);
      }
      tmapIcc = bits.flag();
      if (bits.flag()) bits.skip(8 + 8 + 8 + 1); // tone map CICP
    }
    skipHdrProperties(bits);
    if (gainmap) skipHdrProperties(bits);
  }
  const largeMetadata = icc || exif || xmp || gainmap ? bits.flag() : false;
  const largeCodecConfig = bits.flag();
  const largeItemData = bits.flag();
  const metadataBits = largeMetadata ? 20 : 10;
  const configBits = largeCodecConfig ? 12 : 3;
  const itemBits = largeItemData ? 28 : 15;
  let skipped = 0; // bytes of chunks before the Exif chunk
  if (icc) skipped += bits.read(metadataBits) + 1;
  if (gainmap && tmapIcc) skipped += bits.read(metadataBits) + 1;
  if (gainmap) skipped += bits.read(metadataBits); // gain map metadata
  const gainmapData = gainmap ? bits.read(itemBits) : 0;
  skipped += gainmapData;
  if (gainmapData > 0) skipped += bits.read(configBits);
  skipped += bits.read(configBits); // main item codec configuration
  skipped += bits.read(itemBits) + 1; // main item data
  const alphaData = alpha ? bits.read(itemBits) : 0;
  skipped += alphaData;
  if (alphaData > 0) skipped += bits.read(configBits);
  const compressed = exif || xmp ? bits.flag() : false;
  const exifLength = exif ? bits.read(metadataBits) + 1 : 0;
  const xmpLength = xmp ? bits.read(metadataBits) + 1 : 0;
  const exifAt = payloadStart + bits.byteLength() + skipped;
  return {
    exif: exif ? { offset: exifAt, length: exifLength } : null,
    xmp: xmp ? { offset: exifAt + exifLength, length: xmpLength } : null,
    compressed,
  };
}

/** A chunk as stored, inflated when the header says the metadata is deflate-compressed. */
function inflated(data: Uint8Array, compressed: boolean): Uint8Array {
  if (!compressed) return data;
  const options = { maxOutputLength: MAX_METADATA_BYTES };
  try {
    return inflateSync(data, options);
  } catch {
    try {
      return inflateRawSync(data, options);
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      throw new ParseProblem('corrupt_file', `compressed mini metadata cannot be inflated: ${reason}`);
    }
  }
}

/**
 * Where the TIFF header starts in an Exif chunk: at once, after `Exif\0\0`, or (as in a
 * regular HEIF Exif item, which is what encoders copy in) after a 4-byte offset.
 */
function tiffOf(chunk: Uint8Array): Uint8Array | null {
  const four = ascii(chunk, 0, 4);
  if (four === 'II*\u0000' || four === 'MM\u0000*') return chunk;
  if (ascii(chunk, 0, 6) === 'Exif\u0000\u0000') return chunk.subarray(6);
  if (chunk.length < 4) return null;
  const skip = 4 + viewOf(chunk).getUint32(0);
  return skip < chunk.length ? chunk.subarray(skip) : null;
}

/** Low-overhead HEIF/AVIF: the Exif and XMP chunks at the end of the `mini` box. */
export async function readMini(bytes: ByteSource, topLevel: Box[]): Promise<PhotoFacts> {
  const mini = topLevel.find((b) => b.type === 'mini')!;
  const header = await readRange(bytes, mini.payloadStart, Math.min(HEADER_READ, mini.end - mini.payloadStart));
  const layout = parseMiniHeader(header, mini.payloadStart);
  const chunk = async (range: { offset: number; length: number } | null): Promise<Uint8Array | null> => {
    if (range === null) return null;
    if (range.length > MAX_METADATA_BYTES) {
      throw new ParseProblem('corrupt_file', `mini metadata chunk of ${range.length} bytes`);
    }
    if (range.offset + range.length > mini.end) {
      // Past the box's end: the file is cut there (truncated_file) or the sizes are wrong.
      whole(mini);
      throw new ParseProblem('corrupt_file', 'mini metadata chunk lies past the end of its box');
    }
    return inflated(await readRange(bytes, range.offset, range.length), layout.compressed);
  };
  const exif = await chunk(layout.exif);
  const xmp = await chunk(layout.xmp);
  return embeddedFacts(exif === null ? null : tiffOf(exif), xmp === null ? null : new TextDecoder().decode(xmp));
}
