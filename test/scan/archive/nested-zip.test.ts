import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as zlib from 'node:zlib';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { scanLibrary } from '../../../src/scan/scan.js';
import type { ScanRecord } from '../../../src/scan/types.js';
import { declareCrc, findMember, replaceStored, storedBytes, zeroData } from '../helpers/zip-surgery.js';

const ARCHIVES = fileURLToPath(new URL('../../../fixtures/archives/', import.meta.url));
const PART1 = path.join(ARCHIVES, 'iCloud Photos Part 1 of 2.zip');
const PART2 = path.join(ARCHIVES, 'iCloud Photos Part 2 of 2.zip');
const NESTED = 'iCloud Shared Albums.zip';
const FIRST = 'Shared/Trip/IMG_0201.JPG';
const SECOND = 'Shared/Trip/IMG_0202.JPG';
let dir: string;

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'camroll-nested-'));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

/** The nested zip's members by name, scanned on a real worker thread. */
async function scanNested(part2: string): Promise<Map<string, ScanRecord>> {
  const records = new Map<string, ScanRecord>();
  for await (const event of scanLibrary({
    roots: [PART1, part2],
    cache: false,
    cacheDir: path.join(dir, 'cache'),
    workers: 1,
    cwd: dir,
  })) {
    if (event.type !== 'record') continue;
    const at = event.record.absPath.indexOf(`${NESTED}!/`);
    if (at >= 0) records.set(event.record.absPath.slice(at + NESTED.length + 2), event.record);
  }
  return records;
}

/** Part 2 with its nested zip (stored in it) changed by `surgery`. */
function part2With(surgery: (nested: Buffer) => Buffer): string {
  const outer = fs.readFileSync(PART2);
  const file = path.join(dir, 'iCloud Photos Part 2 of 2.zip');
  fs.writeFileSync(file, replaceStored(outer, NESTED, surgery(Buffer.from(storedBytes(outer, NESTED)))));
  return file;
}

describe('a zip inside a zip', () => {
  it('its members are inflated on the worker thread: ids are the sha256 of the inflated members, capture times kept', async () => {
    const nested = storedBytes(fs.readFileSync(PART2), NESTED);
    const expected = (name: string): string => {
      const { central } = findMember(nested, name);
      expect(nested.readUInt16LE(central + 10)).toBe(8); // deflated
      return `sha256:${createHash('sha256')
        .update(zlib.inflateRawSync(storedBytes(nested, name)))
        .digest('hex')}`;
    };
    const records = await scanNested(PART2);
    expect([...records.keys()].sort()).toEqual([FIRST, SECOND]);
    expect(records.get(FIRST)?.media).toMatchObject({ id: expected(FIRST), taken_at: '2024-01-15T12:50:00Z' });
    expect(records.get(SECOND)?.media).toMatchObject({ id: expected(SECOND), taken_at: '2024-03-01T08:00:00Z' });
    expect(records.get(SECOND)?.source?.taken_at).toBe('icloud_csv');
  });

  it('a member that does not match its CRC-32, or whose data is damaged, is corrupt_file from the thread', async () => {
    const crc = (await scanNested(part2With((nested) => declareCrc(nested, FIRST, 0x12345678)))).get(FIRST);
    expect(crc?.error).toMatchObject({ code: 'corrupt_file', message: expect.stringContaining('CRC-32') });
    const damaged = await scanNested(part2With((nested) => zeroData(nested, FIRST)));
    expect(damaged.get(FIRST)?.error).toMatchObject({
      code: 'corrupt_file',
      message: expect.stringContaining('damaged'),
    });
    // The member beside it is read as before.
    expect(damaged.get(SECOND)?.error).toBeNull();
    expect(damaged.get(SECOND)?.media?.taken_at).toBe('2024-03-01T08:00:00Z');
  });
});
