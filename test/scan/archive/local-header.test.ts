import * as fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { memberDataRange, parseLocalHeader } from '../../../src/scan/archive/local-header.js';
import { centralDirectory } from '../../../src/scan/archive/zip-list.js';

const ZIP = fileURLToPath(new URL('../../../fixtures/archives/takeout-001.zip', import.meta.url));

/** A local header's 30 fixed bytes with the given name and extra field lengths. */
function header(signature: number, nameLength: number, extraLength: number): Buffer {
  const bytes = Buffer.alloc(30);
  bytes.writeUInt32LE(signature, 0);
  bytes.writeUInt16LE(nameLength, 26);
  bytes.writeUInt16LE(extraLength, 28);
  return bytes;
}

describe('a zip local header', () => {
  it.each([
    ['a local header', header(0x04034b50, 12, 0), 100, 142],
    ['with an extra field', header(0x04034b50, 12, 9), 0, 51],
    ['the largest name and extra field', header(0x04034b50, 0xffff, 0xffff), 7, 7 + 30 + 2 * 0xffff],
    ['a central directory header', header(0x02014b50, 12, 0), 0, null],
    ['a data descriptor', header(0x08074b50, 12, 0), 0, null],
    ['cut inside its fixed part', header(0x04034b50, 12, 0).subarray(0, 29), 0, null],
    ['nothing', Buffer.alloc(0), 0, null],
  ])('%s', (_name, bytes, offset, start) => {
    expect(memberDataRange(parseLocalHeader(bytes, offset), 0)?.start ?? null).toBe(start);
  });

  it("gives each member of a real zip the start of its data (the local extra field, not the directory's)", async () => {
    const zip = fs.readFileSync(ZIP);
    let members = 0;
    for await (const entry of centralDirectory(ZIP)) {
      if (entry.folder) continue;
      const start =
        memberDataRange(
          parseLocalHeader(zip.subarray(entry.headerOffset, entry.headerOffset + 30), entry.headerOffset),
          0,
        )?.start ?? null;
      expect(start).not.toBeNull();
      // What follows the header is the name, then the extra field, then the data.
      const nameLength = zip.readUInt16LE(entry.headerOffset + 26);
      expect(zip.subarray(entry.headerOffset + 30, entry.headerOffset + 30 + nameLength).toString()).toBe(entry.name);
      expect(start! + entry.compressedSize).toBeLessThanOrEqual(zip.length);
      members += 1;
    }
    expect(members).toBeGreaterThan(3);
  });
});
