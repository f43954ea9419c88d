import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import tar from 'tar-stream';
import { describe, expect, it } from 'vitest';
import { ScanError } from '../../src/errors.js';
import { createTarGuard, type DroppedMember } from '../../src/scan/archive/tar-guard.js';
import { centralDirectory, createOverlapCheck, localHeaders } from '../../src/scan/archive/zip-list.js';
import { extractFile, FILE_ERROR_CODES, HEAD_BYTES } from '../../src/scan/extract/index.js';
import { parseTakeout } from '../../src/scan/extract/takeout.js';
import { parseXmp } from '../../src/scan/extract/xmp.js';
import { givenSidecars } from '../../src/scan/read-file.js';
import type { ByteSource } from '../../src/scan/types.js';
import {
  blanksZip,
  expansionBomb,
  globalPaxBomb,
  gnuLongNameBomb,
  nestedRangeZip,
  overlapZip,
  paxBomb,
  PHOTO,
  sidecarCorpus,
  tarStream,
  type TarPart,
} from '../helpers/hostile-corpus.js';

/**
 * Every parser against every hostile input of test/helpers/hostile-corpus.ts, at unit-test
 * scale: each answers (a value, a warning, a clear error), none builds what the input claims.
 * A new parser joins the list here; a new trick joins the corpus.
 */

const ERROR_CODES = new Set<string>(Object.keys(FILE_ERROR_CODES));
const bytes = (data: Buffer): ByteSource => ({
  size: data.length,
  head: data.subarray(0, HEAD_BYTES),
  read: async (offset, length) => data.subarray(offset, offset + length),
});

const TARS: [string, TarPart[]][] = [
  ['a PAX header claiming 8 MiB of path', paxBomb(8 * 1024 * 1024)],
  ['a GNU long name of 1 MiB', gnuLongNameBomb(1024 * 1024)],
  ['a PAX global header of 1 MiB', globalPaxBomb(1024 * 1024)],
  ['a member of 16 MiB of zeros', expansionBomb(16 * 1024 * 1024)],
];

const ZIPS: [string, () => Buffer][] = [
  ['300 entries sharing one member', () => overlapZip(300, 256 * 1024)],
  ['a member whose bytes hold another', nestedRangeZip],
  ['64 blanks of 1 MiB', () => blanksZip(64, 1024 * 1024)],
];

describe('the hostile corpus', () => {
  describe.each(sidecarCorpus())('sidecar $name', ({ name, text }) => {
    it('the XMP parser answers or refuses, the Takeout parser never coerces', async () => {
      let xmp: unknown = null;
      try {
        xmp = parseXmp(text);
      } catch (error) {
        expect(error).toBeInstanceOf(Error);
      }
      if (name.endsWith('.json')) {
        expect(xmp === null || typeof xmp === 'object').toBe(true);
        const takeout = parseTakeout(text);
        expect(takeout).not.toBeNull();
        expect(takeout!.coordinates).toBeNull();
        expect(takeout!.takenMs).toBeNull();
        expect(takeout!.warnings.length).toBeGreaterThan(0);
      } else expect(xmp).toBeNull(); // every hostile packet is past a limit
    });

    it('as the sidecar of a photo, costs it at most a warning', async () => {
      const sidecars = givenSidecars({
        takeout: name.endsWith('.json') ? text : null,
        xmp: name.endsWith('.xmp') ? text : null,
      });
      const result = await extractFile({ absPath: `/corpus/${name}.jpg`, bytes: bytes(PHOTO), sidecars });
      expect(result.media.taken_at).not.toBeNull();
      expect(result.source.warnings?.map((w) => w.code)).toContain('skipped_sidecar');
    });
  });

  describe.each(TARS)('tar: %s', (_name, parts) => {
    it('behind the guard, tar-stream reads every other member and never holds the claim', async () => {
      const dropped: DroppedMember[] = [];
      const names: string[] = [];
      const extract = tar.extract();
      const guard = createTarGuard({ onDropped: (member) => dropped.push(member) });
      const done = pipeline(Readable.from(tarStream(parts)), guard, extract);
      for await (const entry of extract) {
        names.push(entry.header.name);
        entry.resume();
        await new Promise((resolve) => entry.on('end', resolve));
      }
      await done;
      const members = parts.filter((part) => part.type === undefined).map((part) => part.name);
      expect([...names, ...dropped.flatMap((d) => (d.name === null ? [] : [d.name]))].sort()).toEqual(members.sort());
      // Never a name (nor anything else) of the claimed size: what is over the cap is dropped, by name.
      expect(names.every((n) => n.length < 1024)).toBe(true);
    });

    it('as a photo, is no photo', async () => {
      const chunks: Buffer[] = [];
      for await (const chunk of tarStream(parts.slice(0, 4))) chunks.push(chunk);
      const data = Buffer.concat(chunks);
      await expect(
        extractFile({
          absPath: '/corpus/x.jpg',
          bytes: bytes(data),
          sidecars: givenSidecars({ takeout: null, xmp: null }),
        }),
      ).rejects.toSatisfy((error) => error instanceof ScanError && ERROR_CODES.has(error.code));
    });
  });

  describe.each(ZIPS)('zip: %s', (name, make) => {
    it('is listed, and its overlaps found, by both listings', async () => {
      const zip = make();
      const check = createOverlapCheck();
      for await (const entry of centralDirectory(zip)) check.add(entry);
      const overlapping = !name.includes('blanks');
      expect(check.problem() !== null).toBe(overlapping);
    });

    it('walked by its local headers (a cut download), ends', async () => {
      const dir = mkdtempSync(join(tmpdir(), 'camroll-corpus-'));
      try {
        writeFileSync(join(dir, 'x.zip'), make());
        const listed: string[] = [];
        for await (const entry of localHeaders(join(dir, 'x.zip'))) listed.push(entry.name);
        expect(listed.length).toBeGreaterThan(0);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
  });
});
