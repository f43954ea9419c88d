import { createWriteStream, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { fileURLToPath } from 'node:url';
import * as zlib from 'node:zlib';

/**
 * Hostile inputs, made at test time (nothing large is committed): what an attacker would
 * hand camroll in an export, each as small on disk as the trick allows. Sizes are parameters:
 * unit tests take them small, the black-box tests at the scale the audit measured. Every
 * parser is run against all of it (test/scan/hostile-corpus.test.ts), so the next parser is too.
 */

/** A real photo (capture time, no GPS) the innocent members and files are copies of. */
export const PHOTO = readFileSync(
  fileURLToPath(new URL('../../fixtures/library/events/paris/IMG_8001.jpg', import.meta.url)),
);

// ---------------------------------------------------------------------------------------------
// tar

const BLOCK = 512;

/** One 512-byte ustar header (sizes past 8 GiB in base-256, as GNU tar writes them). */
export function tarHeader(name: string, size: number, type = '0'): Buffer {
  const header = Buffer.alloc(BLOCK);
  header.write(name.slice(0, 100), 0, 'utf8');
  header.write('0000644\0', 100);
  header.write('0000000\0', 108);
  header.write('0000000\0', 116);
  if (size < 8 ** 11) header.write(`${size.toString(8).padStart(11, '0')}\0`, 124);
  else {
    header[124] = 0x80;
    let rest = BigInt(size);
    for (let i = 135; i > 124; i--, rest >>= 8n) header[i] = Number(rest & 0xffn);
  }
  header.write('14700000000\0', 136);
  header.write('        ', 148);
  header.write(type, 156);
  header.write('ustar\0', 257);
  header.write('00', 263);
  let sum = 0;
  for (const byte of header) sum += byte;
  header.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148);
  return header;
}

const padding = (size: number): Buffer => Buffer.alloc((BLOCK - (size % BLOCK)) % BLOCK);

/** A tar member: a header and its data, or `fill` bytes made as they are written (large claims cost no memory). */
export interface TarPart {
  name: string;
  type?: string;
  data?: Buffer;
  /** Instead of `data`: this many bytes of `fillByte`. */
  fill?: number;
  fillByte?: number;
}

/** A tar stream of `parts`, made as it is read, ending with its two zero blocks. */
export async function* tarStream(parts: TarPart[]): AsyncGenerator<Buffer> {
  for (const part of parts) {
    const size = part.data?.length ?? part.fill ?? 0;
    yield tarHeader(part.name, size, part.type ?? '0');
    if (part.data) yield part.data;
    else if (part.fill) {
      const block = Buffer.alloc(Math.min(part.fill, 4 * 1024 * 1024), part.fillByte ?? 0x61);
      for (let left = part.fill; left > 0; left -= block.length)
        yield left >= block.length ? block : block.subarray(0, left);
    }
    yield padding(size);
  }
  yield Buffer.alloc(2 * BLOCK);
}

/**
 * Writes a tar stream to `path`, gzipped when it ends in .tgz / .tar.gz: level 9 by default
 * (the claims cost little on disk), 1 for speed (zeros: 1.25 GiB in 6 MB, in a second).
 */
export async function writeTar(path: string, parts: TarPart[], level = 9): Promise<void> {
  const source = Readable.from(tarStream(parts));
  if (/\.(tgz|tar\.gz)$/.test(path))
    await pipeline(source, zlib.createGzip({ level, chunkSize: 1024 * 1024 }), createWriteStream(path));
  else await pipeline(source, createWriteStream(path));
}

/** Innocent members around a hostile one: photos before and after it, which must still be read. */
export const photos = (prefix: string, count: number): TarPart[] =>
  Array.from({ length: count }, (_, i) => ({ name: `${prefix}/IMG_${1000 + i}.jpg`, data: PHOTO }));

/**
 * A PAX extended header that claims `claimed` bytes of path (all there, as `a`s that gzip
 * to almost nothing) for the member `Takeout/bomb.jpg`, between innocent photos.
 */
export function paxBomb(claimed: number): TarPart[] {
  return [
    ...photos('Takeout/before', 2),
    { name: 'PaxHeader/bomb', type: 'x', fill: claimed },
    { name: 'Takeout/bomb.jpg', data: PHOTO },
    ...photos('Takeout/after', 2),
  ];
}

/** The same with a GNU long name (`L`) header. */
export function gnuLongNameBomb(claimed: number): TarPart[] {
  return [
    ...photos('long/before', 1),
    { name: '././@LongLink', type: 'L', fill: claimed },
    { name: 'long/bomb.jpg', data: PHOTO },
    ...photos('long/after', 1),
  ];
}

/** A PAX global header past the cap: it belongs to no member, and the members after it are read. */
export function globalPaxBomb(claimed: number): TarPart[] {
  return [{ name: 'pax_global_header', type: 'g', fill: claimed }, ...photos('global', 2)];
}

/** A `.tgz` whose one member inflates to `bytes` of zeros (6 GiB from 6 MB): a bomb by size alone. */
export function expansionBomb(bytes: number): TarPart[] {
  return [...photos('Takeout/before', 1), { name: 'Takeout/clip.mov', fill: bytes, fillByte: 0 }];
}

// ---------------------------------------------------------------------------------------------
// zip

interface ZipMember {
  name: string;
  /** The compressed bytes as stored. */
  stored: Buffer;
  method: number;
  crc32: number;
  size: number;
}

function localHeader(member: ZipMember): Buffer {
  const name = Buffer.from(member.name);
  const header = Buffer.alloc(30);
  header.writeUInt32LE(0x04034b50, 0);
  header.writeUInt16LE(20, 4);
  header.writeUInt16LE(0x0800, 6);
  header.writeUInt16LE(member.method, 8);
  header.writeUInt32LE(member.crc32, 14);
  header.writeUInt32LE(member.stored.length, 18);
  header.writeUInt32LE(member.size, 22);
  header.writeUInt16LE(name.length, 26);
  return Buffer.concat([header, name]);
}

function centralEntry(member: ZipMember, name: string, offset: number): Buffer {
  const raw = Buffer.from(name);
  const entry = Buffer.alloc(46);
  entry.writeUInt32LE(0x02014b50, 0);
  entry.writeUInt16LE(20, 4);
  entry.writeUInt16LE(20, 6);
  entry.writeUInt16LE(0x0800, 8);
  entry.writeUInt16LE(member.method, 10);
  entry.writeUInt32LE(member.crc32, 16);
  entry.writeUInt32LE(member.stored.length, 20);
  entry.writeUInt32LE(member.size, 24);
  entry.writeUInt16LE(raw.length, 28);
  entry.writeUInt32LE(offset, 42);
  return Buffer.concat([entry, raw]);
}

function endRecord(count: number, directoryBytes: number, directoryOffset: number): Buffer {
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(count, 8);
  end.writeUInt16LE(count, 10);
  end.writeUInt32LE(directoryBytes, 12);
  end.writeUInt32LE(directoryOffset, 16);
  return end;
}

const deflated = (name: string, data: Buffer): ZipMember => ({
  name,
  stored: zlib.deflateRawSync(data, { level: 9 }),
  method: 8,
  crc32: zlib.crc32(data),
  size: data.length,
});

/** A zip of the given members, each at its own place: an honest zip (members of the same bytes deflated once). */
export function zipOf(members: { name: string; data: Buffer }[]): Buffer {
  const parts: Buffer[] = [];
  const directory: Buffer[] = [];
  const done = new Map<Buffer, ZipMember>();
  let offset = 0;
  for (const { name, data } of members) {
    const once = done.get(data) ?? deflated(name, data);
    done.set(data, once);
    const member = { ...once, name };
    const local = localHeader(member);
    directory.push(centralEntry(member, name, offset));
    parts.push(local, member.stored);
    offset += local.length + member.stored.length;
  }
  const central = Buffer.concat(directory);
  return Buffer.concat([...parts, central, endRecord(members.length, central.length, offset)]);
}

/**
 * Bytes that deflate about 30 times (under the per-member ratio limit of 100, so no member
 * is refused on its own): runs of 64 of a random byte.
 */
export function compressible(bytes: number): Buffer {
  const out = Buffer.alloc(bytes);
  for (let at = 0; at < bytes; at += 64) out.fill(Math.floor(Math.random() * 256), at, Math.min(at + 64, bytes));
  return out;
}

/**
 * The non-recursive zip bomb: one deflated member of `memberBytes`, and `entries` directory
 * entries that all point at it (3,000 of 50 MB is 150 GB from 1.6 MB).
 */
export function overlapZip(entries: number, memberBytes: number): Buffer {
  const member = deflated('IMG_0000.jpg', compressible(memberBytes));
  const local = localHeader(member);
  const directory = Buffer.concat(
    Array.from({ length: entries }, (_, i) => centralEntry(member, `IMG_${String(i).padStart(4, '0')}.jpg`, 0)),
  );
  const offset = local.length + member.stored.length;
  return Buffer.concat([local, member.stored, directory, endRecord(entries, directory.length, offset)]);
}

/**
 * Entries whose ranges overlap without sharing a start: a stored member whose bytes hold
 * a second member (local header and data), listed by the directory as two.
 */
export function nestedRangeZip(): Buffer {
  const inner = deflated('inner.jpg', PHOTO);
  const innerBytes = Buffer.concat([localHeader(inner), inner.stored]);
  const outer: ZipMember = {
    name: 'outer.jpg',
    stored: innerBytes,
    method: 0,
    crc32: zlib.crc32(innerBytes),
    size: innerBytes.length,
  };
  const outerLocal = localHeader(outer);
  const directory = Buffer.concat([
    centralEntry(outer, 'outer.jpg', 0),
    centralEntry(inner, 'inner.jpg', outerLocal.length),
  ]);
  const offset = outerLocal.length + innerBytes.length;
  return Buffer.concat([outerLocal, innerBytes, directory, endRecord(2, directory.length, offset)]);
}

/** `count` members of `memberBytes` zeros each: each under the ratio floor, together past the budget. */
export function blanksZip(count: number, memberBytes: number): Buffer {
  const blank = Buffer.alloc(memberBytes);
  return zipOf(Array.from({ length: count }, (_, i) => ({ name: `blank/IMG_${i}.jpg`, data: blank })));
}

// ---------------------------------------------------------------------------------------------
// sidecars

/** An XMP sidecar with `attributes` attributes on one element (150,000 are 1.7 MB, under the 2 MB packet cap). */
export function wideXmp(attributes: number): string {
  const parts: string[] = [];
  for (let i = 0; i < attributes; i++) parts.push(`a${i}="${i % 10}"`);
  return `<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF><rdf:Description ${parts.join(' ')}/></rdf:RDF></x:xmpmeta>`;
}

/** An XMP sidecar whose attributes hide behind a `>` inside a quoted value. */
export function hiddenAttributesXmp(attributes: number): string {
  return wideXmp(attributes).replace('<rdf:Description ', '<rdf:Description q="a > b" ');
}

/** An XMP sidecar of `elements` list items (a Photoshop DocumentAncestors gone wild). */
export function longXmp(elements: number): string {
  const items = Array.from({ length: elements }, (_, i) => `<rdf:li>xmp.did:${i}</rdf:li>`).join('');
  return `<x:xmpmeta><rdf:RDF><rdf:Description><photoshop:DocumentAncestors><rdf:Bag>${items}</rdf:Bag></photoshop:DocumentAncestors></rdf:Description></rdf:RDF></x:xmpmeta>`;
}

/** An XMP sidecar nested `depth` elements deep. */
export function deepXmp(depth: number): string {
  return `${'<rdf:Description>'.repeat(depth)}${'</rdf:Description>'.repeat(depth)}`;
}

/** Takeout JSONs whose members are of the wrong type: none may become a place or a time. */
export const WRONG_TYPE_TAKEOUT: Record<string, unknown>[] = [
  { geoData: { latitude: '40.75', longitude: [1] } },
  { geoDataExif: { latitude: '40.75', longitude: '-73.99' } },
  { geoData: { latitude: { value: 40.75 }, longitude: true } },
  { photoTakenTime: { timestamp: '1e9' } },
  { photoTakenTime: { timestamp: [1720829730] } },
  { photoTakenTime: { timestamp: ' 1720829730' } },
  { photoTakenTime: 1720829730, geoData: [40.75, -73.99] },
];

/** A Takeout JSON of `count` empty objects (1.3 million in 4 MB, the sidecar cap, ran a thread out of its heap). */
export const crowdedJson = (count: number): string => `{"people":[${'{},'.repeat(count)}{}]}`;

/** A Takeout JSON nested `depth` arrays deep. */
export const deepJson = (depth: number): string => `{"x":${'['.repeat(depth)}${']'.repeat(depth)}}`;

/** Every sidecar text of the corpus, named, at unit-test scale. */
export function sidecarCorpus(): { name: string; text: string }[] {
  return [
    { name: 'wide.xmp', text: wideXmp(150_000) },
    { name: 'hidden.xmp', text: hiddenAttributesXmp(20_000) },
    { name: 'long.xmp', text: longXmp(60_000) },
    { name: 'deep.xmp', text: deepXmp(100_000) },
    { name: 'crowded.json', text: crowdedJson(1_300_000) },
    { name: 'deep.json', text: deepJson(100_000) },
    ...WRONG_TYPE_TAKEOUT.map((json, i) => ({ name: `wrong-${i}.json`, text: JSON.stringify(json) })),
  ];
}

/**
 * A folder of nine photos, one of them with the hostile XMP sidecar (`IMG_1004.jpg.xmp`):
 * one file's sidecar must cost the other eight nothing.
 */
export function writeSidecarFolder(dir: string, attributes = 150_000): string[] {
  mkdirSync(dir, { recursive: true });
  const names = Array.from({ length: 9 }, (_, i) => `IMG_${1000 + i}.jpg`);
  for (const name of names) writeFileSync(join(dir, name), PHOTO);
  writeFileSync(join(dir, 'IMG_1004.jpg.xmp'), wideXmp(attributes));
  return names;
}
