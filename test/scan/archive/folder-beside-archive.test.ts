import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { scanLibrary } from '../../../src/scan/scan.js';
import type { ScanRecord } from '../../../src/scan/types.js';

const ARCHIVES = fileURLToPath(new URL('../../../fixtures/archives/', import.meta.url));
const PHOTOS = fileURLToPath(
  new URL('../../../fixtures/library/takeout/Takeout/Google Photos/Photos from 2022/', import.meta.url),
);
let dir: string;

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'camroll-beside-'));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

const sha = (data: Buffer): string => `sha256:${createHash('sha256').update(data).digest('hex')}`;

describe('a folder given beside an archive', () => {
  it("is read as a folder's file with the zip's sidecars: a file replaced or gone after the walk", async () => {
    // Part 1 unpacked (photos only); part 2 (their Takeout JSONs) still zipped.
    const folder = path.join(dir, 'takeout', 'Takeout', 'Google Photos', 'Photos from 2022');
    fs.mkdirSync(folder, { recursive: true });
    for (const name of ['IMG_4001.jpg', 'IMG_4002.jpg', 'IMG_4007.jpg'])
      fs.copyFileSync(path.join(PHOTOS, name), path.join(folder, name));
    const replacement = fs.readFileSync(path.join(PHOTOS, 'IMG_4001.jpg'));
    expect(replacement.length).toBeLessThan(fs.statSync(path.join(folder, 'IMG_4002.jpg')).size);

    // Right after the walk has listed it, one file is replaced by a smaller one and one is deleted.
    const stat = async (file: string): Promise<fs.Stats> => {
      const stats = await fs.promises.stat(file);
      if (file.endsWith('IMG_4002.jpg')) fs.writeFileSync(file, replacement);
      if (file.endsWith('IMG_4007.jpg')) fs.rmSync(file);
      return stats;
    };
    const records = new Map<string, ScanRecord>();
    for await (const event of scanLibrary({
      roots: [dir, path.join(ARCHIVES, 'takeout-002.zip')],
      cache: false,
      cacheDir: path.join(dir, 'cache'),
      workers: 0,
      walkFs: { stat },
      cwd: dir,
    })) {
      if (event.type === 'record' && event.record.archive === undefined)
        records.set(path.basename(event.record.absPath), event.record);
    }

    // Untouched: the JSON from the zip gives the capture time.
    expect(records.get('IMG_4001.jpg')?.source?.taken_at).toBe('takeout');
    // Replaced: read as it is now (its id is the new bytes'), still with the zip's JSON for its name.
    const replaced = records.get('IMG_4002.jpg');
    expect(replaced?.error).toBeNull();
    expect(replaced?.media?.id).toBe(sha(replacement));
    expect(replaced?.source?.taken_at).toBe('takeout');
    // Gone: the folder reader's read error, naming the system's reason.
    expect(records.get('IMG_4007.jpg')?.error).toMatchObject({ code: 'read_error', message: /^ENOENT/ });
  });
});
