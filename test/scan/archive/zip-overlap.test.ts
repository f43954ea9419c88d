import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { centralDirectory, createOverlapCheck, type ZipEntry } from '../../../src/scan/archive/zip-list.js';
import { nestedRangeZip, overlapZip, PHOTO, zipOf } from '../../helpers/hostile-corpus.js';

const ARCHIVES = fileURLToPath(new URL('../../../fixtures/archives/', import.meta.url));

async function problemOf(zip: Buffer | string): Promise<string | null> {
  const check = createOverlapCheck();
  for await (const entry of centralDirectory(zip)) check.add(entry);
  return check.problem();
}

const entry = (name: string, headerOffset: number, compressedSize: number): ZipEntry => ({
  name,
  headerOffset,
  compressedSize,
  size: compressedSize,
  method: 0,
  crc32: 0,
  encrypted: false,
  folder: false,
});

describe('overlapping zip entries', () => {
  it('finds none in the committed exports nor in an honest zip', async () => {
    // Every committed zip with a central directory (the cut downloads have none).
    const zips = readdirSync(ARCHIVES).filter((name) => name.endsWith('.zip') && !name.startsWith('cut'));
    expect(zips.length).toBeGreaterThan(5);
    for (const name of zips) expect(await problemOf(join(ARCHIVES, name)), name).toBeNull();
    const honest = zipOf(Array.from({ length: 5 }, (_, i) => ({ name: `IMG_${i}.jpg`, data: PHOTO })));
    expect(await problemOf(honest)).toBeNull();
  });

  it('finds entries that share one member (the non-recursive zip bomb), naming two of them', async () => {
    expect(await problemOf(overlapZip(3000, 64 * 1024))).toMatch(
      /^"IMG_0000\.jpg" and "IMG_0001\.jpg" use the same bytes \(from byte 0\): a zip made to inflate/,
    );
  });

  it('finds a member whose bytes hold the next one', async () => {
    expect(await problemOf(nestedRangeZip())).toMatch(/"outer\.jpg" and "inner\.jpg" use the same bytes/);
  });

  it('finds an overlap in a directory out of file order, and none in one merely out of order', () => {
    const shuffled = createOverlapCheck();
    for (const e of [entry('c', 200, 50), entry('a', 0, 50), entry('b', 100, 50)]) shuffled.add(e);
    expect(shuffled.problem()).toBeNull();
    const overlapping = createOverlapCheck();
    for (const e of [entry('c', 200, 50), entry('a', 0, 150), entry('b', 100, 50)]) overlapping.add(e);
    expect(overlapping.problem()).toMatch(/^two of its directory entries use the same bytes \(from byte 100\)/);
  });

  it('grows past its first block of entries', () => {
    const check = createOverlapCheck();
    for (let i = 0; i < 5000; i++) check.add(entry(`m${i}`, (5000 - i) * 100, 10));
    expect(check.problem()).toBeNull();
    check.add(entry('dup', 100, 10));
    expect(check.problem()).not.toBeNull();
  });
});
