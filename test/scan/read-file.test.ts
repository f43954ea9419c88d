import { createHash, randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ScanError, type ScanErrorCode } from '../../src/errors.js';
import { createSidecarFinder } from '../../src/scan/extract/index.js';
import { createFileReader, type ExtractFn } from '../../src/scan/read-file.js';
import type { ByteSource, Extraction } from '../../src/scan/types.js';

let dir: string;
beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'camroll-read-'));
});
afterAll(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});

const extraction = (filename: string): Extraction => ({
  media: {
    taken_at: null,
    latitude: null,
    longitude: null,
    media_type: 'photo',
    filename,
    duration_seconds: null,
    device_make: null,
    device_model: null,
    device_lens_model: null,
  },
  source: { taken_at: null, coordinates: null },
});

describe('createFileReader', () => {
  // A 64-byte read buffer and a 16-byte head make every boundary reachable with tiny files.
  it.each([1, 15, 16, 17, 63, 64, 65, 128, 129, 1000])(
    'hashes a %i-byte file exactly, head and tail once each',
    async (size) => {
      const file = path.join(dir, `f${size}.jpg`);
      const data = randomBytes(size);
      fs.writeFileSync(file, data);
      const seen: { head: Buffer; tail: Uint8Array | null }[] = [];
      const extract: ExtractFn = async ({ bytes }: { bytes: ByteSource }) => {
        const head = Buffer.from(bytes.head);
        // Ask for the last 8 bytes, as a reader looking for a trailer would.
        const tail = bytes.size >= 8 ? await bytes.read(bytes.size - 8, 8) : null;
        seen.push({ head, tail: tail && Buffer.from(tail) });
        return extraction(path.basename(file));
      };
      const read = createFileReader({ extract, sidecars: createSidecarFinder(), headBytes: 16, chunkBytes: 64 });
      const result = await read(file);
      expect(result.error).toBeNull();
      expect(result.media!.id).toBe(`sha256:${createHash('sha256').update(data).digest('hex')}`);
      expect(result.size).toBe(size);
      expect(seen[0]!.head).toEqual(data.subarray(0, Math.min(16, size)));
      if (size >= 8) expect(seen[0]!.tail).toEqual(data.subarray(size - 8));
    },
  );

  it('reports an unopenable path as a read_error that is not cached', async () => {
    const read = createFileReader({
      extract: async () => extraction('x'),
      sidecars: createSidecarFinder(),
      headBytes: 16,
    });
    const result = await read(path.join(dir, 'missing.jpg'));
    expect(result).toMatchObject({ media: null, cacheable: false, error: { code: 'read_error' } });
  });

  it('passes the extractor error through, cacheable unless it is a read error', async () => {
    const file = path.join(dir, 'bad.jpg');
    fs.writeFileSync(file, 'xx');
    const failing =
      (code: ScanErrorCode): ExtractFn =>
      async () => {
        throw new ScanError(code, file, `${code} here`);
      };
    const corrupt = await createFileReader({
      extract: failing('corrupt_file'),
      sidecars: createSidecarFinder(),
      headBytes: 16,
    })(file);
    expect(corrupt).toMatchObject({ cacheable: true, error: { code: 'corrupt_file', message: 'corrupt_file here' } });
    const flaky = await createFileReader({
      extract: failing('read_error'),
      sidecars: createSidecarFinder(),
      headBytes: 16,
    })(file);
    expect(flaky).toMatchObject({ cacheable: false, error: { code: 'read_error' } });
  });

  it('turns anything else an extractor throws into a cacheable internal_error', async () => {
    const file = path.join(dir, 'defect.jpg');
    fs.writeFileSync(file, 'xx');
    const broken: ExtractFn = async () => {
      throw new TypeError('cannot read properties of undefined');
    };
    const result = await createFileReader({ extract: broken, sidecars: createSidecarFinder(), headBytes: 16 })(file);
    expect(result).toMatchObject({
      media: null,
      cacheable: true,
      error: { code: 'internal_error', message: 'cannot read properties of undefined' },
    });
  });

  it("reads a file given with sidecar texts with those, in place of its folder's", async () => {
    const folder = fs.mkdtempSync(path.join(dir, 'given-'));
    const file = path.join(folder, 'IMG_1.jpg');
    fs.writeFileSync(file, randomBytes(100));
    const json = (timestamp: number): string => JSON.stringify({ photoTakenTime: { timestamp: String(timestamp) } });
    fs.writeFileSync(`${file}.json`, json(1_600_000_000));
    const seen: (number | null | undefined)[] = [];
    const extract: ExtractFn = async ({ absPath, sidecars }) => {
      seen.push((await sidecars.load(absPath)).takeout?.takenMs);
      return extraction('IMG_1.jpg');
    };
    const read = createFileReader({ extract, sidecars: createSidecarFinder(), headBytes: 16 });
    await read(file);
    await read({ absPath: file, sidecars: { takeout: json(1_700_000_000), xmp: null } });
    await read({ absPath: file, sidecars: { takeout: null, xmp: null } });
    expect(seen).toEqual([1_600_000_000_000, 1_700_000_000_000, undefined]);
  });
});
