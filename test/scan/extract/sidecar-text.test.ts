import * as fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MAX_SIDECAR_BYTES, readSidecarText } from '../../../src/scan/extract/sidecars.js';

let dir: string;

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'camroll-sidecar-text-'));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('readSidecarText', () => {
  it('reads a sidecar whole, and of a larger file only its first MAX_SIDECAR_BYTES', async () => {
    const small = path.join(dir, 'IMG_0001.JPG.json');
    fs.writeFileSync(small, '{"title":"IMG_0001.JPG"}');
    expect(await readSidecarText(small)).toBe('{"title":"IMG_0001.JPG"}');
    const large = path.join(dir, 'IMG_0002.JPG.json');
    fs.writeFileSync(large, Buffer.alloc(MAX_SIDECAR_BYTES + 4096, 0x61));
    const text = await readSidecarText(large);
    expect(text.length).toBe(MAX_SIDECAR_BYTES);
    expect(MAX_SIDECAR_BYTES).toBe(4 * 1024 * 1024);
  });

  it('rejects for a file that is not there (the finder then has no sidecar)', async () => {
    await expect(readSidecarText(path.join(dir, 'gone.json'))).rejects.toMatchObject({ code: 'ENOENT' });
  });
});
