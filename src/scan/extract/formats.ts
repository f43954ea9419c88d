import { ascii } from './bytes.js';

/** Extensions (lower-case, no dot) of the files a scan treats as media. */
export const MEDIA_EXTENSIONS: ReadonlySet<string> = new Set([
  'jpg',
  'jpeg',
  'heic',
  'heif',
  'avif',
  'png',
  'tif',
  'tiff',
  'webp',
  'dng',
  'cr2',
  'cr3',
  'nef',
  'arw',
  'orf',
  'rw2',
  'raf',
  'mov',
  'mp4',
  'm4v',
  '3gp',
]);

const VIDEO_EXTENSIONS: ReadonlySet<string> = new Set(['mov', 'mp4', 'm4v', '3gp']);

/** `video` for the video extensions, `photo` for everything else (the contract's default). */
export function mediaTypeOf(ext: string): 'photo' | 'video' {
  return VIDEO_EXTENSIONS.has(ext.replace(/^\./, '').toLowerCase()) ? 'video' : 'photo';
}

/** What the first bytes say the file is; the extension only decides photo or video. */
export type ContainerKind = 'jpeg' | 'tiff' | 'orf' | 'rw2' | 'png' | 'webp' | 'raf' | 'bmff' | 'unknown';

/** Recognises the container from its magic number. */
export function sniffContainer(head: Uint8Array): ContainerKind {
  if (head.length >= 3 && head[0] === 0xff && head[1] === 0xd8 && head[2] === 0xff) return 'jpeg';
  const four = ascii(head, 0, 4);
  // Classic TIFF (42) and BigTIFF (43): tiff.ts reads both.
  if (four === 'II*\u0000' || four === 'MM\u0000*' || four === 'II+\u0000' || four === 'MM\u0000+') return 'tiff';
  if (four === 'IIRO' || four === 'IIRS' || four === 'MMOR') return 'orf';
  if (four === 'IIU\u0000') return 'rw2';
  if (ascii(head, 0, 8) === '\u0089PNG\r\n\u001a\n') return 'png';
  if (four === 'RIFF' && ascii(head, 8, 12) === 'WEBP') return 'webp';
  if (ascii(head, 0, 15) === 'FUJIFILMCCD-RAW') return 'raf';
  const boxType = ascii(head, 4, 8);
  if (['ftyp', 'moov', 'mdat', 'wide', 'free', 'skip', 'pnot'].includes(boxType)) return 'bmff';
  return 'unknown';
}
