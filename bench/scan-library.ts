/**
 * Synthetic media for the scan benchmark and the scan tests: JPEG files with a real EXIF
 * block (capture time with offset, GPS, make/model) followed by filler bytes, and MP4 files
 * with ftyp / mdat / moov (mvhd) where moov sits after the media data, as phones write it.
 */
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import path from 'node:path';
import { seededRandom } from '../src/util/seeded-random.js';

export interface ExifSpec {
  make?: string;
  model?: string;
  /** 'YYYY:MM:DD HH:MM:SS' */
  dateTimeOriginal?: string;
  /** '+02:00' */
  offsetTimeOriginal?: string;
  latitude?: number;
  longitude?: number;
}

type Entry = { tag: number; type: 2 | 4 | 5; count: number; data: Buffer };

const ascii = (tag: number, text: string): Entry => {
  const data = Buffer.from(`${text}\0`, 'latin1');
  return { tag, type: 2, count: data.length, data };
};
const long = (tag: number, value: number): Entry => {
  const data = Buffer.alloc(4);
  data.writeUInt32LE(value);
  return { tag, type: 4, count: 1, data };
};
const rationals = (tag: number, values: [number, number][]): Entry => {
  const data = Buffer.alloc(values.length * 8);
  values.forEach(([n, d], i) => {
    data.writeUInt32LE(n, i * 8);
    data.writeUInt32LE(d, i * 8 + 4);
  });
  return { tag, type: 5, count: values.length, data };
};

/** Lays out one IFD at `offset` (little-endian TIFF); values over 4 bytes follow the IFD. */
function ifd(entries: Entry[], offset: number): Buffer {
  entries.sort((a, b) => a.tag - b.tag);
  const tableSize = 2 + entries.length * 12 + 4;
  const table = Buffer.alloc(tableSize);
  const extra: Buffer[] = [];
  let extraOffset = offset + tableSize;
  table.writeUInt16LE(entries.length, 0);
  entries.forEach((entry, i) => {
    const at = 2 + i * 12;
    table.writeUInt16LE(entry.tag, at);
    table.writeUInt16LE(entry.type, at + 2);
    table.writeUInt32LE(entry.count, at + 4);
    if (entry.data.length <= 4) {
      entry.data.copy(table, at + 8);
    } else {
      table.writeUInt32LE(extraOffset, at + 8);
      const padded = entry.data.length % 2 ? Buffer.concat([entry.data, Buffer.alloc(1)]) : entry.data;
      extra.push(padded);
      extraOffset += padded.length;
    }
  });
  return Buffer.concat([table, ...extra]);
}

const dms = (value: number): [number, number][] => {
  const abs = Math.abs(value);
  const degrees = Math.floor(abs);
  const minutes = Math.floor((abs - degrees) * 60);
  const seconds = Math.round(((abs - degrees) * 60 - minutes) * 60 * 10000);
  return [
    [degrees, 1],
    [minutes, 1],
    [seconds, 10000],
  ];
};

/** The TIFF body of an APP1 Exif segment. */
export function exifTiff(spec: ExifSpec): Buffer {
  const exifEntries: Entry[] = [];
  if (spec.dateTimeOriginal) exifEntries.push(ascii(0x9003, spec.dateTimeOriginal));
  if (spec.offsetTimeOriginal) exifEntries.push(ascii(0x9011, spec.offsetTimeOriginal));
  const gpsEntries: Entry[] = [];
  if (spec.latitude !== undefined && spec.longitude !== undefined) {
    gpsEntries.push(ascii(1, spec.latitude < 0 ? 'S' : 'N'), rationals(2, dms(spec.latitude)));
    gpsEntries.push(ascii(3, spec.longitude < 0 ? 'W' : 'E'), rationals(4, dms(spec.longitude)));
  }
  const ifd0Entries: Entry[] = [];
  if (spec.make) ifd0Entries.push(ascii(0x010f, spec.make));
  if (spec.model) ifd0Entries.push(ascii(0x0110, spec.model));
  // Pointers are filled in once the sizes are known.
  if (exifEntries.length) ifd0Entries.push(long(0x8769, 0));
  if (gpsEntries.length) ifd0Entries.push(long(0x8825, 0));
  const header = Buffer.from([0x49, 0x49, 0x2a, 0x00, 8, 0, 0, 0]);
  let ifd0 = ifd(ifd0Entries, 8);
  const exifOffset = 8 + ifd0.length;
  const exif = exifEntries.length ? ifd(exifEntries, exifOffset) : Buffer.alloc(0);
  const gpsOffset = exifOffset + exif.length;
  const gps = gpsEntries.length ? ifd(gpsEntries, gpsOffset) : Buffer.alloc(0);
  for (const entry of ifd0Entries) {
    if (entry.tag === 0x8769) entry.data.writeUInt32LE(exifOffset);
    if (entry.tag === 0x8825) entry.data.writeUInt32LE(gpsOffset);
  }
  ifd0 = ifd(ifd0Entries, 8);
  return Buffer.concat([header, ifd0, exif, gps]);
}

/** A JPEG: SOI, APP1 Exif, SOS with `bodyBytes` of filler, EOI. */
export function jpegBytes(spec: ExifSpec, bodyBytes: number, filler: Buffer = randomBytes(bodyBytes)): Buffer {
  const tiff = exifTiff(spec);
  const app1 = Buffer.alloc(4 + 6);
  app1.writeUInt16BE(0xffe1, 0);
  app1.writeUInt16BE(2 + 6 + tiff.length, 2);
  app1.write('Exif\0\0', 4, 'latin1');
  const sos = Buffer.from([0xff, 0xda, 0x00, 0x08, 0x01, 0x01, 0x00, 0x00, 0x3f, 0x00]);
  // Entropy-coded data never holds a bare 0xFF: stuff it as the format requires.
  const body = Buffer.from(filler.subarray(0, bodyBytes));
  for (let i = 0; i < body.length; i++) if (body[i] === 0xff) body[i] = 0xfe;
  return Buffer.concat([Buffer.from([0xff, 0xd8]), app1, tiff, sos, body, Buffer.from([0xff, 0xd9])]);
}

const box = (type: string, ...parts: Buffer[]): Buffer => {
  const body = Buffer.concat(parts);
  const head = Buffer.alloc(8);
  head.writeUInt32BE(8 + body.length);
  head.write(type, 4, 'latin1');
  return Buffer.concat([head, body]);
};

/** Seconds from 1904-01-01 (the ISO-BMFF epoch) to `date`. */
const mac = (date: Date): number => Math.floor(date.getTime() / 1000) + 2082844800;

/**
 * Writes an MP4 of about `mediaBytes` to `file` without holding it in memory: ftyp, a big
 * mdat of filler, then moov/mvhd (v0) with creation time and duration.
 */
export function writeMp4(file: string, options: { mediaBytes: number; created: Date; durationSeconds: number }): void {
  const ftyp = box('ftyp', Buffer.from('isom\0\0\x02\0isomiso2mp41', 'latin1'));
  const mvhd = Buffer.alloc(100);
  mvhd.writeUInt32BE(0, 0); // version 0, flags
  mvhd.writeUInt32BE(mac(options.created), 4);
  mvhd.writeUInt32BE(mac(options.created), 8);
  mvhd.writeUInt32BE(1000, 12); // timescale
  mvhd.writeUInt32BE(Math.round(options.durationSeconds * 1000), 16);
  mvhd.writeUInt32BE(0x00010000, 20); // rate 1.0
  mvhd.writeUInt16BE(0x0100, 24); // volume 1.0
  const moov = box('moov', box('mvhd', mvhd));
  const fd = fs.openSync(file, 'w');
  try {
    fs.writeSync(fd, ftyp);
    const header = Buffer.alloc(8);
    header.writeUInt32BE(8 + options.mediaBytes);
    header.write('mdat', 4, 'latin1');
    fs.writeSync(fd, header);
    const chunk = randomBytes(4 * 1024 * 1024);
    for (let left = options.mediaBytes; left > 0; left -= chunk.length)
      fs.writeSync(fd, chunk, 0, Math.min(left, chunk.length));
    fs.writeSync(fd, moov);
  } finally {
    fs.closeSync(fd);
  }
}

const CAMERAS: [string, string][] = [
  ['Apple', 'iPhone 13'],
  ['Google', 'Pixel 7'],
  ['SONY', 'ILCE-7M3'],
  ['Canon', 'Canon EOS R6'],
];
const PLACES: [number, number, string][] = [
  [40.7505, -73.9934, '-04:00'],
  [51.5033, -0.1196, '+01:00'],
  [-33.8568, 151.2153, '+10:00'],
  [35.6852, 139.7528, '+09:00'],
];

/** Varied EXIF for the n-th synthetic photo; every seventh has no GPS, every eleventh no date. */
export function exifFor(n: number, random: () => number): ExifSpec {
  const [make, model] = CAMERAS[n % CAMERAS.length]!;
  const [lat, lon, offset] = PLACES[n % PLACES.length]!;
  const day = 1 + Math.floor(random() * 28);
  const hour = Math.floor(random() * 24);
  const spec: ExifSpec = { make, model };
  if (n % 11 !== 0) {
    spec.dateTimeOriginal = `2023:0${1 + (n % 9)}:${String(day).padStart(2, '0')} ${String(hour).padStart(2, '0')}:15:30`;
    spec.offsetTimeOriginal = offset;
  }
  if (n % 7 !== 0) {
    spec.latitude = lat + random() * 0.01;
    spec.longitude = lon + random() * 0.01;
  }
  return spec;
}

/** Writes `count` JPEGs of `minBytes`..`maxBytes` into `dir`, `perFolder` per sub-folder. */
export function writePhotoLibrary(
  dir: string,
  options: { count: number; minBytes: number; maxBytes: number; perFolder?: number; seed?: number },
): number {
  const random = seededRandom(options.seed ?? 42);
  const filler = randomBytes(options.maxBytes);
  const perFolder = options.perFolder ?? 500;
  let total = 0;
  for (let n = 0; n < options.count; n++) {
    const folder = path.join(dir, `roll-${String(Math.floor(n / perFolder)).padStart(4, '0')}`);
    if (n % perFolder === 0) fs.mkdirSync(folder, { recursive: true });
    const size = options.minBytes + Math.floor(random() * (options.maxBytes - options.minBytes + 1));
    // A rotating window into one random buffer: distinct contents without generating each file.
    const start = Math.floor(random() * Math.max(1, filler.length - size));
    const bytes = jpegBytes(
      exifFor(n, random),
      size,
      Buffer.concat([Buffer.from(`#${n}#`), filler.subarray(start, start + size)]),
    );
    fs.writeFileSync(path.join(folder, `IMG_${String(n).padStart(6, '0')}.JPG`), bytes);
    total += bytes.length;
  }
  return total;
}
