import { describe, expect, it } from 'vitest';
import { createPhotoDetails, isPhotoDetailsName, parseICloudDate } from '../../../src/scan/archive/photo-details.js';

describe('iCloud Photo Details CSV', () => {
  it.each([
    ['Saturday June 4,2022 12:11 PM GMT', '2022-06-04T12:11:00.000Z'],
    ['Sunday December 31,2023 11:59 PM GMT', '2023-12-31T23:59:00.000Z'],
    ['Monday January 1,2024 12:10 AM GMT', '2024-01-01T00:10:00.000Z'],
    ['Friday March 1,2024 12:00 PM UTC', '2024-03-01T12:00:00.000Z'],
    ['June 4, 2022 1:05 AM GMT+02:00', '2022-06-03T23:05:00.000Z'],
  ])('reads %s as a UTC instant', (text, iso) => {
    expect(new Date(parseICloudDate(text)!).toISOString()).toBe(iso);
  });

  it.each([
    '',
    'Saturday June 31,2022 12:11 PM GMT',
    'Saturday Juno 4,2022 12:11 PM GMT',
    '2022-06-04 12:11',
    'Saturday June 4,2022 13:11 PM GMT',
  ])('refuses %j', (text) => {
    expect(parseICloudDate(text)).toBeNull();
  });

  it('keys rows by name across CSVs; deleted and hidden are read; a name with two instants is not used', () => {
    const details = createPhotoDetails();
    const head = 'imgName,fileChecksum,favorite,hidden,deleted,originalCreationDate,viewCount,importDate';
    details.add(
      `\ufeff${head}\nIMG_1.HEIC,a,no,yes,no,"Saturday June 4,2022 12:11 PM ` +
        `GMT",3,x\nIMG_2.HEIC,b,no,no,yes,"Saturday June 4,2022 12:12 PM GMT",0,x\n`,
    );
    details.add(
      `${head}\nIMG_3.HEIC,c,no,no,no,"Saturday June 4,2022 12:13 PM GMT",0,x\nIMG_3.HEIC,d,no,no,no,"Sunday June ` +
        `5,2022 12:13 PM GMT",0,x\n`,
    );
    expect(details.get('img_1.heic')).toEqual({ takenMs: Date.UTC(2022, 5, 4, 12, 11), deleted: false, hidden: true });
    expect(details.get('IMG_2.HEIC')?.deleted).toBe(true);
    expect(details.get('IMG_3.HEIC')).toBeNull();
    expect(details.get('IMG_4.HEIC')).toBeNull();
  });

  it('knows the CSV names of an export', () => {
    expect(['Photo Details.csv', 'Photo Details-1.csv', 'photo details-12.CSV'].every(isPhotoDetailsName)).toBe(true);
    expect(['Photo Details (1).csv', 'Albums.csv', 'Photo Details.json'].some(isPhotoDetailsName)).toBe(false);
  });
});
