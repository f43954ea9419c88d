import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMemberReader } from '../../../src/scan/archive/read-member.js';
import type { MemberTask } from '../../../src/scan/archive/types.js';
import { centralDirectory, type ZipEntry } from '../../../src/scan/archive/zip-list.js';
import { extractFile, HEAD_BYTES } from '../../../src/scan/extract/index.js';

const ARCHIVES = fileURLToPath(new URL('../../../fixtures/archives/', import.meta.url));
const LIBRARY = fileURLToPath(new URL('../../../fixtures/library/', import.meta.url));
const zip = path.join(ARCHIVES, 'takeout-001.zip');
let entries: ZipEntry[];
let dir: string;

beforeAll(async () => {
  entries = [];
  for await (const entry of centralDirectory(zip)) if (!entry.folder) entries.push(entry);
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'camroll-member-'));
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const task = (entry: ZipEntry, archive = zip): MemberTask => ({
  absPath: `${archive}!/${entry.name}`,
  source: {
    kind: 'zip',
    archive,
    headerOffset: entry.headerOffset,
    compressedSize: entry.compressedSize,
    size: entry.size,
    method: entry.method,
    crc32: entry.crc32,
  },
  sidecars: { takeout: null, xmp: null },
});

const sha = (file: string): string => `sha256:${createHash('sha256').update(fs.readFileSync(file)).digest('hex')}`;

describe('reading a zip member on a worker', () => {
  const jpg = (): ZipEntry => entries.find((entry) => entry.name.endsWith('IMG_0001.JPG'))!;

  it("gives the extracted file's id and metadata, inflated in one call or streamed with a small head", async () => {
    const entry = jpg();
    expect(entry.method).toBe(8);
    const whole = await createMemberReader({ extract: extractFile, headBytes: HEAD_BYTES })(task(entry));
    // Streamed with a head smaller than the EXIF block: the readers ask past it and get the range.
    const streamed = await createMemberReader({ extract: extractFile, headBytes: 64, inMemoryBytes: 0 })(task(entry));
    expect(whole.error).toBeNull();
    expect(whole.media?.id).toBe(sha(path.join(LIBRARY, entry.name)));
    expect(streamed).toEqual(whole);
  });

  it('a member whose bytes do not match its CRC-32 is corrupt_file, however it is inflated', async () => {
    // The directory's CRC-32 off by one bit; the data stays a valid deflate stream.
    const wrong = { ...jpg(), crc32: (jpg().crc32 ^ 1) >>> 0 };
    for (const inMemoryBytes of [undefined, 0]) {
      const result = await createMemberReader({
        extract: extractFile,
        headBytes: HEAD_BYTES,
        ...(inMemoryBytes === undefined ? {} : { inMemoryBytes }),
      })(task(wrong));
      expect(result.error?.code).toBe('corrupt_file');
      expect(result.cacheable).toBe(true);
    }
  });

  it('a member that inflates past its declared size is stopped there', async () => {
    const entry = jpg();
    const small = { ...entry, size: 100 };
    for (const inMemoryBytes of [undefined, 0]) {
      const result = await createMemberReader({
        extract: extractFile,
        headBytes: 64,
        ...(inMemoryBytes === undefined ? {} : { inMemoryBytes }),
      })(task(small));
      expect(['archive_limit', 'corrupt_file']).toContain(result.error?.code);
    }
  });

  it('a local header where none is is corrupt_file; a member past the end of the file is truncated_archive', async () => {
    const entry = jpg();
    const misplaced = await createMemberReader({ extract: extractFile, headBytes: HEAD_BYTES })(
      task({ ...entry, headerOffset: entry.headerOffset + 1 }),
    );
    expect(misplaced.error?.code).toBe('corrupt_file');
    const cut = path.join(dir, 'cut.zip');
    fs.writeFileSync(cut, fs.readFileSync(zip).subarray(0, entry.headerOffset + 40));
    const result = await createMemberReader({ extract: extractFile, headBytes: HEAD_BYTES })(task(entry, cut));
    expect(result.error?.code).toBe('truncated_archive');
  });
});
