import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as zlib from 'node:zlib';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ARCHIVE_LIMITS } from '../../../src/scan/archive/types.js';
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

/** The error of the nested zip itself (not of a member of it), scanned as part of `part2`. */
async function nestedError(part2: string): Promise<ScanRecord['error'] | undefined> {
  let error: ScanRecord['error'] | undefined;
  for await (const event of scanLibrary({
    roots: [PART1, part2],
    cache: false,
    cacheDir: path.join(dir, 'cache'),
    workers: 1,
    cwd: dir,
  })) {
    if (event.type === 'record' && event.record.absPath.endsWith(`!/${NESTED}`)) error = event.record.error;
  }
  return error;
}

/** Part 2 with the outer zip's headers of the nested zip changed by `patch` (given both header offsets). */
function part2Patched(patch: (outer: Buffer, at: { central: number; local: number }) => void): string {
  const outer = Buffer.from(fs.readFileSync(PART2));
  patch(outer, findMember(outer, NESTED));
  const file = path.join(dir, 'iCloud Photos Part 2 of 2.zip');
  fs.writeFileSync(file, outer);
  return file;
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

  it('a refused nested zip is one error line with its code: encrypted, too large, unreadable, not a zip', async () => {
    const encrypted = part2Patched((outer, { central, local }) => {
      outer.writeUInt16LE(outer.readUInt16LE(central + 8) | 1, central + 8);
      outer.writeUInt16LE(outer.readUInt16LE(local + 6) | 1, local + 6);
    });
    expect(await nestedError(encrypted)).toMatchObject({
      code: 'unsupported_format',
      message: expect.stringContaining('the nested zip is encrypted'),
    });
    // Declared larger than a nested zip is read in memory (both sizes, so no ratio limit answers first).
    const huge = part2Patched((outer, { central, local }) => {
      const size = ARCHIVE_LIMITS.nestedZipBytes + 1;
      for (const at of [central + 20, central + 24, local + 18, local + 22]) outer.writeUInt32LE(size, at);
    });
    expect(await nestedError(huge)).toMatchObject({
      code: 'archive_limit',
      message: expect.stringContaining(`read in memory up to ${ARCHIVE_LIMITS.nestedZipBytes} bytes`),
    });
    // Its local header is not one (its data cannot be found): not read.
    const unread = part2Patched((outer, { local }) => outer.writeUInt32LE(0, local));
    expect(await nestedError(unread)).toMatchObject({
      code: 'corrupt_file',
      message: expect.stringContaining('the nested zip cannot be read'),
    });
    // Garbage stored as the nested zip (its CRC-32 made right): read, but it cannot be listed.
    const garbage = part2With((nested) => Buffer.alloc(nested.length, 0x41));
    expect(await nestedError(garbage)).toMatchObject({
      code: 'corrupt_file',
      message: expect.stringContaining('the nested zip cannot be listed'),
    });
    // The intact nested zip is no error line of its own.
    expect(await nestedError(PART2)).toBeUndefined();
  });
});
