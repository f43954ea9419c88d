import * as fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scanLibrary } from '../../../src/scan/scan.js';
import type { ScanRecord } from '../../../src/scan/types.js';
import { MIB, moovAtEnd, moovInMiddle, partsLength, writeTgz } from '../../e2e/helpers/long-video.js';

const LIBRARY = fileURLToPath(new URL('../../../fixtures/library/', import.meta.url));
const MOV = path.join(LIBRARY, 'events', 'sao-paulo', 'IMG_5001.MOV');
let dir: string;

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
    const original = fs.readFileSync(MOV);
    // As a camera writes a long video: ftyp, a 65 MiB mdat, then moov.
    const long = moovAtEnd(original, 65 * MIB);
    // Its moov 40 MiB in, with 30 MiB after it: in neither end camroll keeps.
    const middle = moovInMiddle(original, 40 * MIB, 30 * MIB);
    const photo = fs.readFileSync(path.join(LIBRARY, 'travel', 'patagonia.jpg'));
    const tgz = path.join(dir, 'takeout-001.tgz');
    const ids = await writeTgz(tgz, [
      ['videos/long.mov', long],
      ['videos/middle.mov', middle],
      ['photos/patagonia.jpg', [photo]],
    ]);

    const records = await scan([tgz]);
    const folder = (await scan([MOV])).get('IMG_5001.MOV')!;
    const read = records.get('long.mov')!;
    expect(read.error).toBeNull();
    expect(read.size).toBe(partsLength(long));
    expect(read.media?.id).toBe(ids.get('videos/long.mov'));
    // The metadata of the video it was made from (its moov is unchanged).
    const { id: _id, filename: _name, ...facts } = folder.media!;
    expect(facts.taken_at).not.toBeNull();
    expect(read.media).toMatchObject(facts);
    expect(read.source).toEqual(folder.source);

    expect(records.get('middle.mov')?.error).toMatchObject({
      code: 'archive_limit',
      message: expect.stringMatching(/extract it from the archive/),
    });
    // The stream goes on after them.
    expect(records.get('patagonia.jpg')?.media?.id).toBe(ids.get('photos/patagonia.jpg'));
  });
});
