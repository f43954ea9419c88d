import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { fileURLToPath } from 'node:url';
import * as zlib from 'node:zlib';
import tar from 'tar-stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scanLibrary } from '../../../src/scan/scan.js';
import type { ScanRecord } from '../../../src/scan/types.js';

const LIBRARY = fileURLToPath(new URL('../../../fixtures/library/', import.meta.url));
const EVENTS = path.join(LIBRARY, 'events', 'sao-paulo');
const MIB = 1024 * 1024;
let dir: string;

/** One member as parts; `zeros` parts are that many zero bytes, written a MiB at a time. */
type Part = Buffer | { zeros: number };

function box(type: string, size: number): Buffer {
  const header = Buffer.alloc(8);
  header.writeUInt32BE(size, 0);
  header.write(type, 4, 'latin1');
  return header;
}

/** The top-level boxes of an MP4 or MOV: [type, offset, size]. */
function boxes(file: Buffer): Map<string, { offset: number; size: number }> {
  const found = new Map<string, { offset: number; size: number }>();
  for (let offset = 0; offset + 8 <= file.length; ) {
    const size = file.readUInt32BE(offset);
    found.set(file.toString('latin1', offset + 4, offset + 8), { offset, size });
    offset += size;
  }
  return found;
}

/** Writes a .tgz of the members and gives each member's sha256. */
async function writeTgz(file: string, members: [string, Part[]][]): Promise<Map<string, string>> {
  const pack = tar.pack();
  const ids = new Map<string, string>();
  const zeros = Buffer.alloc(MIB);
  const written = pipeline(pack, zlib.createGzip({ level: 1 }), fs.createWriteStream(file));
  for (const [name, parts] of members) {
    const size = parts.reduce((sum, part) => sum + (Buffer.isBuffer(part) ? part.length : part.zeros), 0);
    const hash = createHash('sha256');
    const entry = pack.entry({ name, size });
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

async function scan(roots: string[]): Promise<Map<string, ScanRecord>> {
  const records = new Map<string, ScanRecord>();
  for await (const event of scanLibrary({
    roots,
    cache: false,
    cacheDir: path.join(dir, 'cache'),
    workers: 1,
    cwd: dir,
  }))
    if (event.type === 'record') records.set(path.basename(event.record.absPath), event.record);
  return records;
}

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'camroll-large-tar-'));
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('a .tgz member over 64 MiB', () => {
  it('is hashed as the stream passes and read from its ends: a moov at the end gives its metadata, one in the middle an archive_limit line', async () => {
    // IMG_5001.MOV is ftyp, moov, mdat. As a camera writes a long video: ftyp, a 65 MiB mdat, moov.
    const original = fs.readFileSync(path.join(EVENTS, 'IMG_5001.MOV'));
    const { moov, mdat } = Object.fromEntries(boxes(original)) as Record<string, { offset: number; size: number }>;
    expect([moov!.offset < mdat!.offset, mdat!.offset + mdat!.size]).toEqual([true, original.length]);
    const ftypBytes = original.subarray(0, moov!.offset);
    const moovBytes = original.subarray(moov!.offset, mdat!.offset);
    const mdatBytes = original.subarray(mdat!.offset);
    const pad = 65 * MIB;
    const atEnd: Part[] = [ftypBytes, box('mdat', mdat!.size + pad), mdatBytes.subarray(8), { zeros: pad }, moovBytes];
    // Its moov 40 MiB in, with 30 MiB after it: in neither end camroll keeps.
    const inMiddle: Part[] = [
      ftypBytes,
      box('free', 40 * MIB),
      { zeros: 40 * MIB - 8 },
      moovBytes,
      box('free', 30 * MIB),
      { zeros: 30 * MIB - 8 },
      mdatBytes,
    ];
    const photo = fs.readFileSync(path.join(LIBRARY, 'travel', 'patagonia.jpg'));
    const tgz = path.join(dir, 'takeout-001.tgz');
    const ids = await writeTgz(tgz, [
      ['videos/long.mov', atEnd],
      ['videos/middle.mov', inMiddle],
      ['photos/patagonia.jpg', [photo]],
    ]);

    const records = await scan([tgz]);
    const folder = (await scan([path.join(EVENTS, 'IMG_5001.MOV')])).get('IMG_5001.MOV')!;
    const long = records.get('long.mov')!;
    expect(long.error).toBeNull();
    expect(long.size).toBe(original.length + pad);
    expect(long.media?.id).toBe(ids.get('videos/long.mov'));
    // The metadata of the video it was made from (its moov is unchanged).
    const { id: _id, filename: _name, ...facts } = folder.media!;
    expect(facts.taken_at).not.toBeNull();
    expect(long.media).toMatchObject(facts);
    expect(long.source).toEqual(folder.source);

    expect(records.get('middle.mov')?.error).toMatchObject({
      code: 'archive_limit',
      message: expect.stringMatching(/extract it from the archive/),
    });
    // The stream goes on after them.
    expect(records.get('patagonia.jpg')?.media?.id).toBe(ids.get('photos/patagonia.jpg'));
  });
});
