import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { extname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { ScanError } from '../../../src/errors.js';
import {
  FILE_ERROR_CODES,
  HEAD_BYTES,
  MEDIA_EXTENSIONS,
  createSidecarFinder,
  extractFile,
} from '../../../src/scan/extract/index.js';
import { createFileReader } from '../../../src/scan/read-file.js';
import type { ByteSource, Extraction } from '../../../src/scan/types.js';
import { seededRandom } from '../../../src/util/seeded-random.js';

/**
 * Random truncations and byte flips of every fixture, in process, with a seeded PRNG and a
 * fixed number of rounds: the extractor never throws anything but a ScanError with a stable
 * code, every file still gives exactly one result (a line), and damage outside the metadata
 * (JPEG image data after the start of scan, a video's mdat payload) changes nothing.
 */

const ROUNDS_PER_FILE = 12;
const SEED = 0x5eed_2026;
const ROOTS = [
  fileURLToPath(new URL('../../../fixtures/library/', import.meta.url)),
  fileURLToPath(new URL('./files/', import.meta.url)),
];
const ERROR_CODES = new Set<string>(Object.keys(FILE_ERROR_CODES));

function mediaFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && MEDIA_EXTENSIONS.has(extname(entry.name).slice(1).toLowerCase()))
    .map((entry) => join(entry.parentPath, entry.name))
    .sort();
}

const FILES = ROOTS.flatMap(mediaFiles).filter((file) => readFileSync(file).length > 0);

function source(data: Uint8Array, headSize: number): ByteSource {
  return {
    size: data.length,
    head: data.subarray(0, headSize),
    read: async (offset, length) => data.subarray(offset, offset + length),
  };
}

type Outcome = { ok: Extraction } | { code: string };

/** Extracts from bytes in memory; fails the test on anything but a ScanError with a stable code. */
async function outcome(absPath: string, data: Uint8Array, headSize: number): Promise<Outcome> {
  try {
    return { ok: await extractFile({ absPath, bytes: source(data, headSize), sidecars: createSidecarFinder() }) };
  } catch (error) {
    expect(error, `${absPath}: ${String(error)}`).toBeInstanceOf(ScanError);
    const code = (error as ScanError).code;
    expect(ERROR_CODES.has(code), code).toBe(true);
    // Bytes in memory never fail to read, and no mutation may reach a defect.
    expect(code, `${absPath}: ${(error as Error).message}`).not.toMatch(/^(read_error|internal_error)$/);
    return { code };
  }
}

/** Where a JPEG's entropy-coded data starts (after the SOS header), or null. */
function jpegScanStart(data: Uint8Array): number | null {
  if (data[0] !== 0xff || data[1] !== 0xd8) return null;
  let pos = 2;
  while (pos + 4 <= data.length && data[pos] === 0xff) {
    const marker = data[pos + 1]!;
    const length = (data[pos + 2]! << 8) | data[pos + 3]!;
    if (marker === 0xda) return pos + 2 + length;
    pos += 2 + length;
  }
  return null;
}

/** The payload range of a top-level `mdat` box (32-bit sizes, as the fixtures have), or null. */
function mdatPayload(data: Uint8Array): [number, number] | null {
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  for (let pos = 0; pos + 8 <= data.length; ) {
    const size = view.getUint32(pos);
    const type = String.fromCharCode(...data.subarray(pos + 4, pos + 8));
    if (size < 8) return null;
    if (type === 'mdat') return [pos + 8, Math.min(pos + size, data.length)];
    pos += size;
  }
  return null;
}

/** Bytes that hold no metadata: flipping one must change nothing. */
function inertRange(file: string, data: Uint8Array): [number, number] | null {
  const ext = extname(file).toLowerCase();
  if (ext === '.jpg' || ext === '.jpeg') {
    const start = jpegScanStart(data);
    // The last two bytes are EOI; the walk stops at SOS and never looks at them either.
    return start !== null && start < data.length - 2 ? [start, data.length - 2] : null;
  }
  if (['.mp4', '.mov', '.m4v', '.3gp'].includes(ext)) return mdatPayload(data);
  return null;
}

const work = mkdtempSync(join(tmpdir(), 'camroll-fuzz-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('extractor fuzz: truncations and byte flips of every fixture', () => {
  it('has fixtures to mutate', () => {
    expect(FILES.length).toBeGreaterThan(40);
  });

  it.each(FILES.map((file) => [relative(join(ROOTS[0]!, '..', '..'), file), file] as const))(
    '%s',
    async (_name, file) => {
      const original = readFileSync(file);
      const random = seededRandom(SEED ^ original.length);
      const before = await outcome(file, original, HEAD_BYTES);
      const inert = inertRange(file, original);
      for (let round = 0; round < ROUNDS_PER_FILE; round++) {
        const headSize = random() < 0.5 ? 64 : HEAD_BYTES;
        // A truncation anywhere: an error or media, never a crash.
        const cut = original.subarray(0, 1 + Math.floor(random() * (original.length - 1)));
        await outcome(file, cut, headSize);
        // One to four flipped bytes anywhere.
        const flipped = Uint8Array.from(original);
        const flips = 1 + Math.floor(random() * 4);
        for (let i = 0; i < flips; i++)
          flipped[Math.floor(random() * flipped.length)]! ^= 1 + Math.floor(random() * 255);
        await outcome(file, flipped, headSize);
        // Damage outside the metadata: the same answer as before.
        if (inert) {
          const quiet = Uint8Array.from(original);
          const at = inert[0] + Math.floor(random() * (inert[1] - inert[0]));
          quiet[at] = quiet[at]! ^ 0xff;
          expect(await outcome(file, quiet, headSize), `flip at ${at}`).toEqual(before);
        }
      }
    },
    60_000,
  );

  it('gives exactly one result per file, media or error, for a folder of mutated files', async () => {
    const random = seededRandom(SEED);
    const written: string[] = [];
    FILES.forEach((file, i) => {
      const data = Uint8Array.from(readFileSync(file));
      if (random() < 0.5) {
        const at = Math.floor(random() * data.length);
        data[at] = data[at]! ^ 0x5a;
      }
      const cut = random() < 0.5 ? data.subarray(0, Math.max(1, Math.floor(random() * data.length))) : data;
      const path = join(work, `${i}${extname(file)}`);
      writeFileSync(path, cut);
      written.push(path);
    });
    const read = createFileReader({ extract: extractFile, sidecars: createSidecarFinder(), headBytes: HEAD_BYTES });
    for (const path of written) {
      const result = await read(path);
      expect(Boolean(result.media) !== Boolean(result.error), path).toBe(true);
      if (result.error) {
        expect(result.error.code).not.toBe('internal_error');
        expect(result.cacheable).toBe(true);
      } else expect(result.media!.id).toMatch(/^sha256:[0-9a-f]{64}$/);
    }
  }, 120_000);
});
