import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import { pipeline } from 'node:stream/promises';
import * as zlib from 'node:zlib';
import tar from 'tar-stream';

/**
 * Tar members too large to commit, written at run time from a small MOV (ftyp, moov, mdat):
 * what a camera writes for a long video, made by padding its boxes with zeros.
 */

export const MIB = 1024 * 1024;

/** One member as parts; `zeros` parts are that many zero bytes, written a MiB at a time. */
export type Part = Buffer | { zeros: number };

function box(type: string, size: number): Buffer {
  const header = Buffer.alloc(8);
  header.writeUInt32BE(size, 0);
  header.write(type, 4, 'latin1');
  return header;
}

/** The top-level boxes of a MOV laid out as ftyp, moov, mdat. */
function split(mov: Buffer): { ftyp: Buffer; moov: Buffer; mdat: Buffer } {
  const found = new Map<string, number>();
  for (let offset = 0; offset + 8 <= mov.length; offset += mov.readUInt32BE(offset))
    found.set(mov.toString('latin1', offset + 4, offset + 8), offset);
  const moov = found.get('moov')!;
  const mdat = found.get('mdat')!;
  if (!(moov < mdat)) throw new Error('expected ftyp, moov, mdat');
  return { ftyp: mov.subarray(0, moov), moov: mov.subarray(moov, mdat), mdat: mov.subarray(mdat) };
}

/** The video with `pad` more bytes in its mdat and its moov moved last (a camera's layout). */
export function moovAtEnd(mov: Buffer, pad: number): Part[] {
  const { ftyp, moov, mdat } = split(mov);
  return [ftyp, box('mdat', mdat.length + pad), mdat.subarray(8), { zeros: pad }, moov];
}

/** The video with its moov `before` bytes in and `after` bytes of free space after it. */
export function moovInMiddle(mov: Buffer, before: number, after: number): Part[] {
  const { ftyp, moov, mdat } = split(mov);
  return [ftyp, box('free', before), { zeros: before - 8 }, moov, box('free', after), { zeros: after - 8 }, mdat];
}

/** The length of a member made of `parts`. */
export function partsLength(parts: Part[]): number {
  return parts.reduce((sum, part) => sum + (Buffer.isBuffer(part) ? part.length : part.zeros), 0);
}

/** Writes a .tgz of the members (streamed: none is ever whole in memory) and gives each member's sha256 id. */
export async function writeTgz(file: string, members: [string, Part[]][]): Promise<Map<string, string>> {
  const pack = tar.pack();
  const ids = new Map<string, string>();
  const zeros = Buffer.alloc(MIB);
  const written = pipeline(pack, zlib.createGzip({ level: 1 }), fs.createWriteStream(file));
  for (const [name, parts] of members) {
    const hash = createHash('sha256');
    const entry = pack.entry({ name, size: partsLength(parts) });
    const write = async (chunk: Buffer): Promise<void> => {
      hash.update(chunk);
      if (!entry.write(chunk)) await new Promise((resolve) => entry.once('drain', resolve));
    };
    for (const part of parts) {
      if (Buffer.isBuffer(part)) await write(part);
      else for (let left = part.zeros; left > 0; left -= MIB) await write(zeros.subarray(0, Math.min(MIB, left)));
    }
    entry.end();
    ids.set(name, `sha256:${hash.digest('hex')}`);
  }
  pack.finalize();
  await written;
  return ids;
}
