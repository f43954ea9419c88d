/**
 * `npm run bench:extract [-- --ms 1500]`
 *
 * Are camroll's own photo readers as fast as handing exifr the first chunk? For each kind of
 * fixture (JPEG, a phone-like JPEG with a 60 KiB ICC segment before the image data, PNG, HEIC,
 * TIFF) it times, on the same bytes in memory:
 *   - camroll: the container reader + per-entry TIFF reader + XMP parser (src/scan/extract),
 *   - exifr:   `exifr.parse(head, ...)` with the same tags picked and XMP on,
 * in alternating slices, and prints the best calls per second of each and the ratio. exifr is a dev dependency kept for
 * this only.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { brandsOf, listBoxes, readPayload } from '../src/scan/extract/bmff.js';
import { memorySource } from '../src/scan/extract/bytes.js';
import { TAG } from '../src/scan/extract/exif.js';
import { readHeif } from '../src/scan/extract/heif.js';
import { readJpeg, readTiffBased } from '../src/scan/extract/photo.js';
import { readPng } from '../src/scan/extract/png-webp.js';

const { values: flags } = parseArgs({ options: { ms: { type: 'string', default: '1500' } } });
const BUDGET_MS = Number(flags.ms);
const SLICES = 8;
const lib = (p: string): Uint8Array =>
  readFileSync(fileURLToPath(new URL(`../fixtures/library/${p}`, import.meta.url)));
const exifr = createRequire(import.meta.url)('exifr') as typeof import('exifr');

const ids = Object.values(TAG);
const EXIFR_OPTIONS = {
  translateKeys: false,
  translateValues: false,
  reviveValues: false,
  sanitize: true,
  mergeOutput: false,
  ifd0: { pick: ids },
  exif: { pick: ids },
  gps: { pick: ids.filter((id) => id < 0x20) },
  ifd1: false,
  interop: false,
  makerNote: false,
  userComment: false,
  xmp: true,
  icc: false,
  iptc: false,
  jfif: false,
  ihdr: false,
};

/** A JPEG as phones write them: a large APP2 (ICC) between the EXIF and the image data. */
function phoneLike(jpeg: Uint8Array): Uint8Array {
  const app2 = new Uint8Array(4 + 60 * 1024);
  app2.set([0xff, 0xe2, ((app2.length - 2) >> 8) & 0xff, (app2.length - 2) & 0xff]);
  let pos = 2;
  while (jpeg[pos + 1] !== 0xdb && jpeg[pos + 1] !== 0xda) pos += 2 + ((jpeg[pos + 2]! << 8) | jpeg[pos + 3]!);
  return Buffer.concat([jpeg.subarray(0, pos), app2, jpeg.subarray(pos)]);
}

async function ours(kind: string, data: Uint8Array): Promise<unknown> {
  const bytes = memorySource(data);
  if (kind === 'png') return readPng(bytes);
  if (kind === 'tiff') return readTiffBased(bytes);
  if (kind === 'heic') {
    const top = await listBoxes(bytes, 0, bytes.size, true);
    const ftyp = top.find((b) => b.type === 'ftyp')!;
    brandsOf(await readPayload(bytes, ftyp, 4096));
    return readHeif(bytes, top);
  }
  return readJpeg(bytes);
}

/** Calls per second of `fn` over `ms` (after a warm-up, so both sides are compiled). */
async function rate(fn: () => Promise<unknown>, ms: number): Promise<number> {
  let calls = 0;
  const start = performance.now();
  while (performance.now() - start < ms) {
    for (let i = 0; i < 50; i++) await fn();
    calls += 50;
  }
  return (calls * 1000) / (performance.now() - start);
}

/**
 * Both sides in alternating slices, best slice of each: on a shared machine a burst of load
 * hits one slice, not one side.
 */
async function compare(a: () => Promise<unknown>, b: () => Promise<unknown>): Promise<[number, number]> {
  for (let i = 0; i < 200; i++) await Promise.all([a(), b()]);
  let bestA = 0;
  let bestB = 0;
  for (let slice = 0; slice < SLICES; slice++) {
    bestA = Math.max(bestA, await rate(a, BUDGET_MS / SLICES));
    bestB = Math.max(bestB, await rate(b, BUDGET_MS / SLICES));
  }
  return [bestA, bestB];
}

const cases: [string, string, Uint8Array][] = [
  ['JPEG (EXIF)', 'jpeg', lib('events/new-york/IMG_0001.JPG')],
  ['JPEG (EXIF + 60 KiB ICC)', 'jpeg', phoneLike(lib('events/new-york/IMG_0001.JPG'))],
  ['JPEG (EXIF + XMP)', 'jpeg', lib('damaged/IMG_0004-xmp-entities.jpg')],
  ['PNG (XMP)', 'png', lib('events/london/wembley-2024-03-30.png')],
  ['HEIC (EXIF item)', 'heic', lib('events/sydney/IMG_2001.HEIC')],
  ['TIFF', 'tiff', lib('events/london/DSC_3002.tif')],
];
console.log(`load ${readFileSync('/proc/loadavg', 'utf8').trim()}`);
console.log('file                          camroll/s     exifr/s   camroll : exifr');
for (const [name, kind, data] of cases) {
  const head = Buffer.from(data.buffer, data.byteOffset, Math.min(data.length, 256 * 1024));
  const [a, b] = await compare(
    () => ours(kind, data),
    () => exifr.parse(head, EXIFR_OPTIONS),
  );
  console.log(`${name.padEnd(28)} ${a.toFixed(0).padStart(10)} ${b.toFixed(0).padStart(11)}   ${(a / b).toFixed(2)}`);
}
