import { inflateSync } from 'node:zlib';
import type { ByteSource } from '../types.js';
import { ascii, readRange, viewOf } from './bytes.js';
import { ParseProblem } from './errors.js';
import type { PhotoFacts } from './photo.js';
import { embeddedFacts, readJpeg } from './photo.js';
import type { ExtractionWarning } from './warnings.js';
import { warning } from './warnings.js';

const MAX_CHUNKS = 100_000;
const MAX_TEXT_CHUNK = 4 * 1024 * 1024;
const latin1 = new TextDecoder('latin1');
const utf8 = new TextDecoder();

/** Strips the "Exif\0\0" prefix some writers put before the TIFF header. */
function tiffOf(data: Uint8Array): Uint8Array {
  return ascii(data, 0, 6) === 'Exif\u0000\u0000' ? data.subarray(6) : data;
}

/** ImageMagick's "Raw profile type exif/xmp" text: a header line, a length, then hex. */
function rawProfile(text: string): Uint8Array | null {
  const m = /^\s*\S+\s+(\d+)\s+([\s\S]*)$/.exec(text);
  if (!m) return null;
  const hex = m[2]!.replace(/\s+/g, '');
  if (!/^[0-9a-f]*$/i.test(hex)) return null;
  return Buffer.from(hex, 'hex');
}

/**
 * PNG: an `eXIf` chunk, XMP in `iTXt` ("XML:com.adobe.xmp"), or ImageMagick's hex
 * "Raw profile type exif" in `tEXt`/`zTXt`. Only chunk headers are read for image data.
 */
export async function readPng(bytes: ByteSource): Promise<PhotoFacts> {
  let tiff: Uint8Array | null = null;
  let xmp: string | null = null;
  const warnings: ExtractionWarning[] = [];
  let pos = 8;
  for (let n = 0; n < MAX_CHUNKS && pos + 8 <= bytes.size; n++) {
    const header = await readRange(bytes, pos, 8);
    const length = viewOf(header).getUint32(0);
    const type = ascii(header, 4, 8);
    const dataStart = pos + 8;
    if (type === 'IEND') break;
    if (dataStart + length + 4 > bytes.size) {
      const problem = `PNG chunk '${type}' runs past the end of the file`;
      if (tiff === null && xmp === null) throw new ParseProblem('truncated_file', problem);
      warnings.push(warning('skipped_segment', `${problem}; the metadata before it was kept`));
      break;
    }
    if (type === 'eXIf' && tiff === null) tiff = tiffOf(await readRange(bytes, dataStart, length));
    else if ((type === 'iTXt' || type === 'tEXt' || type === 'zTXt') && length <= MAX_TEXT_CHUNK) {
      const data = await readRange(bytes, dataStart, length);
      const text = pngText(type, data);
      if (text) {
        if (text.keyword === 'XML:com.adobe.xmp' && xmp === null) xmp = text.value;
        else if (text.keyword === 'Raw profile type exif' && tiff === null) {
          const raw = rawProfile(text.value);
          if (raw) tiff = tiffOf(raw);
        } else if (text.keyword === 'Raw profile type xmp' && xmp === null) {
          const raw = rawProfile(text.value);
          if (raw) xmp = utf8.decode(raw);
        }
      }
    }
    pos = dataStart + length + 4;
  }
  return embeddedFacts(tiff, xmp, warnings);
}

function pngText(type: string, data: Uint8Array): { keyword: string; value: string } | null {
  const nul = data.indexOf(0);
  if (nul <= 0) return null;
  const keyword = latin1.decode(data.subarray(0, nul));
  try {
    if (type === 'tEXt') return { keyword, value: latin1.decode(data.subarray(nul + 1)) };
    if (type === 'zTXt')
      return {
        keyword,
        value: latin1.decode(inflateSync(data.subarray(nul + 2), { maxOutputLength: MAX_TEXT_CHUNK })),
      };
    // iTXt: compression flag, method, language\0, translated keyword\0, text
    const compressed = data[nul + 1] === 1;
    const langEnd = data.indexOf(0, nul + 3);
    const transEnd = langEnd < 0 ? -1 : data.indexOf(0, langEnd + 1);
    if (transEnd < 0) return null;
    const body = data.subarray(transEnd + 1);
    return { keyword, value: utf8.decode(compressed ? inflateSync(body, { maxOutputLength: MAX_TEXT_CHUNK }) : body) };
  } catch {
    return null; // a broken text chunk is not worth failing the image for
  }
}

/** WebP (RIFF): the `EXIF` and `XMP ` chunks. */
export async function readWebp(bytes: ByteSource): Promise<PhotoFacts> {
  const riffSize = viewOf(await readRange(bytes, 4, 4)).getUint32(0, true);
  // A RIFF size past the end of the file is a cut file: the chunks that are there still count.
  const end = Math.min(bytes.size, 8 + riffSize);
  let tiff: Uint8Array | null = null;
  let xmp: string | null = null;
  const warnings: ExtractionWarning[] = [];
  let pos = 12;
  for (let n = 0; n < MAX_CHUNKS && pos + 8 <= end; n++) {
    const header = await readRange(bytes, pos, 8);
    const type = ascii(header, 0, 4);
    const length = viewOf(header).getUint32(4, true);
    if (pos + 8 + length > end) {
      const problem = `WebP chunk '${type}' runs past the end of the ${end < 8 + riffSize ? 'file' : 'RIFF data'}`;
      if (tiff === null && xmp === null)
        throw new ParseProblem(end < 8 + riffSize ? 'truncated_file' : 'corrupt_file', problem);
      warnings.push(warning('skipped_segment', `${problem}; the metadata before it was kept`));
      break;
    }
    if (type === 'EXIF') tiff = tiffOf(await readRange(bytes, pos + 8, length));
    else if (type === 'XMP ') xmp = utf8.decode(await readRange(bytes, pos + 8, length));
    pos += 8 + length + (length % 2); // chunks are padded to an even size
  }
  if (tiff === null && xmp === null && end < 8 + riffSize)
    throw new ParseProblem('truncated_file', 'WebP data runs past the end of the file');
  return embeddedFacts(tiff, xmp, warnings);
}

/** Fujifilm RAF: the header points at an embedded JPEG preview that carries the EXIF. */
export async function readRaf(bytes: ByteSource): Promise<PhotoFacts> {
  const header = await readRange(bytes, 84, 8);
  const offset = viewOf(header).getUint32(0);
  const length = viewOf(header).getUint32(4);
  if (offset + length > bytes.size)
    throw new ParseProblem('truncated_file', 'RAF preview runs past the end of the file');
  const soi = await readRange(bytes, offset, 2);
  if (soi[0] !== 0xff || soi[1] !== 0xd8) throw new ParseProblem('corrupt_file', 'RAF preview is not a JPEG');
  return readJpeg(bytes, offset, offset + length);
}
