import { describe, expect, it } from 'vitest';
import { describePartGap, findPartGaps, icloudFolderOf, parsePartName } from '../../src/scan/export-parts.js';

describe('parsePartName', () => {
  it.each([
    // Takeout, the classic form and the 2025 form with a batch segment
    ['takeout-20250101T000000Z-001.zip', 'takeout', 'takeout-20250101T000000Z', 1, null],
    ['takeout-20250101T000000Z-012.tgz', 'takeout', 'takeout-20250101T000000Z', 12, null],
    ['takeout-20250101T000000Z-003.tar.gz', 'takeout', 'takeout-20250101T000000Z', 3, null],
    ['takeout-20250101T000000Z-1-001.zip', 'takeout', 'takeout-20250101T000000Z-1', 1, null],
    ['takeout-20250101T000000Z-2-004.zip', 'takeout', 'takeout-20250101T000000Z-2', 4, null],
    ['Takeout-20250101T000000Z-005.ZIP', 'takeout', 'Takeout-20250101T000000Z', 5, null],
    // unzipped into a folder of the same name; downloaded twice by a browser
    ['takeout-20250101T000000Z-002', 'takeout', 'takeout-20250101T000000Z', 2, null],
    ['takeout-20250101T000000Z-002 (1).zip', 'takeout', 'takeout-20250101T000000Z', 2, null],
    // iCloud, in the account's language
    ['iCloud Photos Part 1 of 3.zip', 'icloud', 'iCloud Photos', 1, 3],
    ['iCloud Photos Part 3 of 3', 'icloud', 'iCloud Photos', 3, 3],
    ['iCloud Shared Albums Part 2 of 2.zip', 'icloud', 'iCloud Shared Albums', 2, 2],
    ['iCloud Fotos Teil 2 von 4.zip', 'icloud', 'iCloud Fotos', 2, 4],
    ['Photos iCloud Partie 1 sur 2.zip', 'icloud', 'Photos iCloud', 1, 2],
    ['Fotos de iCloud Parte 2 de 5.zip', 'icloud', 'Fotos de iCloud', 2, 5],
    ['Foto di iCloud parte 1 di 2.zip', 'icloud', 'Foto di iCloud', 1, 2],
    ["iCloud-foto's Deel 1 van 2.zip", 'icloud', "iCloud-foto's", 1, 2],
    ['iCloud-bilder Del 2 av 3.zip', 'icloud', 'iCloud-bilder', 2, 3],
    ['Zdjęcia iCloud Część 1 z 2.zip', 'icloud', 'Zdjęcia iCloud', 1, 2],
    ['iCloud-kuvat Osa 1/2.zip', 'icloud', 'iCloud-kuvat', 1, 2],
    ['iCloud\u00a0Photos\u00a0Part\u00a01\u00a0of\u00a02.zip', 'icloud', 'iCloud Photos', 1, 2],
  ])('%s is part %#', (name, kind, label, number, total) => {
    expect(parsePartName(name)).toMatchObject({ export: kind, label, number, total });
  });

  it.each([
    'IMG_0001.JPG',
    'takeout.zip',
    'takeout-20250101T000000Z.zip', // no part number
    'takeout-20250101-001.zip', // not Takeout's stamp
    'takeout-20250101T000000Z-000.zip', // parts start at 1
    'Photos Part 1 of 3.zip', // not iCloud's
    'iCloud Photos Part 4 of 3.zip', // a part past the total
    'iCloud Photos Part 0 of 3.zip',
    'iCloud Photos.zip',
    'holiday-2023-001.zip',
  ])('%s names no part', (name) => {
    expect(parsePartName(name)).toBeNull();
  });
});

describe('findPartGaps', () => {
  it('names the Takeout numbers below the highest given', () => {
    expect(
      findPartGaps([
        'takeout-20250101T000000Z-001.zip',
        'takeout-20250101T000000Z-003.tgz',
        'takeout-20250101T000000Z-005.zip',
      ]),
    ).toEqual([
      { export: 'takeout', label: 'takeout-20250101T000000Z', given: [1, 3, 5], missing: [2, 4], total: null },
    ]);
  });

  it('names every iCloud number up to the total, the first and the last included', () => {
    expect(findPartGaps(['iCloud Photos Part 2 of 4.zip'])).toEqual([
      { export: 'icloud', label: 'iCloud Photos', given: [2], missing: [1, 3, 4], total: 4 },
    ]);
  });

  it('lists nothing for whole exports, a part given twice, or unrelated names', () => {
    expect(
      findPartGaps([
        'takeout-20250101T000000Z-001.zip',
        'takeout-20250101T000000Z-002', // unzipped
        'takeout-20250101T000000Z-002.zip',
        'iCloud Photos Part 1 of 2.zip',
        'iCloud Photos Part 2 of 2',
        'photos',
        'IMG_1.JPG',
      ]),
    ).toEqual([]);
  });

  it('keeps exports apart: two Takeout requests, two batches, photos and shared albums', () => {
    const gaps = findPartGaps([
      'takeout-20250101T000000Z-002.zip',
      'takeout-20250202T000000Z-001.zip',
      'takeout-20250303T000000Z-1-001.zip',
      'takeout-20250303T000000Z-2-002.zip',
      'iCloud Photos Part 1 of 1.zip',
      'iCloud Shared Albums Part 2 of 2.zip',
    ]);
    expect(gaps.map((gap) => [gap.label, gap.missing])).toEqual([
      ['iCloud Shared Albums', [1]],
      ['takeout-20250101T000000Z', [1]],
      ['takeout-20250303T000000Z-2', [1]],
    ]);
  });
});

describe('describePartGap', () => {
  it('names the missing numbers as the parts are named', () => {
    const [takeout] = findPartGaps(['takeout-20250101T000000Z-001.zip', 'takeout-20250101T000000Z-004.zip']);
    expect(describePartGap(takeout!)).toBe('takeout-20250101T000000Z: parts 002 and 003 missing');
    const [icloud] = findPartGaps(['iCloud Fotos Teil 1 von 2.zip']);
    expect(describePartGap(icloud!)).toBe('iCloud Fotos: part 2 of 2 missing');
  });

  it('counts what it does not name', () => {
    const [gap] = findPartGaps(['iCloud Photos Part 1 of 30.zip']);
    expect(describePartGap(gap!)).toMatch(/^iCloud Photos: parts 2, 3, .*, 21 and 9 more of 30 missing$/);
  });
});

describe('icloudFolderOf', () => {
  it.each([
    ['/d/iCloud Photos Part 1 of 2/iCloud Photos/Photos/IMG_1.JPG', '/d/iCloud Photos Part 1 of 2'],
    ['/d/iCloud Photos Part 1 of 2/iCloud Photos/Photo Details.csv', '/d/iCloud Photos Part 1 of 2'],
    ['/d/iCloud Fotos Teil 1 von 2/Fotos/IMG_1.JPG', '/d/iCloud Fotos Teil 1 von 2'],
    ['/d/export/iCloud Photos/Photos/IMG_1.JPG', '/d/export/iCloud Photos'],
    ['/d/DCIM/IMG_1.JPG', null],
    ['/d/iCloud Photos Part 1 of 2', null], // the folder itself is no file in it
  ])('%s -> %s', (file, folder) => {
    expect(icloudFolderOf(file)).toBe(folder);
  });
});
