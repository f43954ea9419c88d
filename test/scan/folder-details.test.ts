import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { createPhotoDetails } from '../../src/scan/archive/photo-details.js';
import { readFolderDetails } from '../../src/scan/sources/folder.js';

const FOLDERS = fileURLToPath(new URL('../../fixtures/exports/icloud-folders', import.meta.url));
const PART1 = join(FOLDERS, 'iCloud Photos Part 1 of 2');
const PART2 = join(FOLDERS, 'iCloud Photos Part 2 of 2');

describe('readFolderDetails', () => {
  const dir = mkdtempSync(join(tmpdir(), 'camroll-folder-details-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("reads the CSVs of an iCloud export unzipped into folders, each part's rows under its folder", async () => {
    const details = createPhotoDetails();
    expect(await readFolderDetails({ roots: [FOLDERS], details })).toEqual([]);
    expect(details.get('IMG_0103.JPG', PART1)?.deleted).toBe(true);
    // Part 2's CSV describes a photo of part 1: no row of part 1's own names it.
    expect(details.get('IMG_0101.JPG', PART1)?.takenMs).toBe(Date.UTC(2022, 5, 4, 12, 11));
    expect(details.get('IMG_0104.JPG', PART2)?.hidden).toBe(true);
    // Rows for photos the folders do not hold are not kept (IMG_0202 is in the shared albums' zip).
    expect(details.get('IMG_0202.JPG')).toBeNull();
  });

  it('names a CSV it cannot use; lists no folder outside an export', async () => {
    const part = join(dir, 'iCloud Photos Part 1 of 1', 'iCloud Photos');
    mkdirSync(part, { recursive: true });
    writeFileSync(join(part, 'Photo Details.csv'), 'name,when\nIMG_1.JPG,today\n');
    writeFileSync(join(part, 'IMG_1.JPG'), '');
    mkdirSync(join(dir, 'DCIM', 'sub'), { recursive: true });
    writeFileSync(join(dir, 'DCIM', 'sub', 'Photo Details.csv'), 'imgName\nIMG_1.JPG\n');
    const details = createPhotoDetails();
    const problems = await readFolderDetails({ roots: [dir], details });
    expect(problems).toEqual([{ absPath: join(part, 'Photo Details.csv'), message: expect.stringMatching(/imgName/) }]);
    expect(details.size).toBe(0);
  });
});
