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

  const head = 'imgName,fileChecksum,favorite,hidden,deleted,originalCreationDate,viewCount,importDate';
  const row = (name: string, day: number, flags = 'no,no'): string =>
    `${name},x,no,${flags},"Saturday June ${day},2022 12:11 PM GMT",0,x`;

  it('keys rows by name across CSVs; deleted and hidden are read; a name with two instants is not used', async () => {
    const details = createPhotoDetails();
    const part = 'p1.zip';
    expect(
      await details.read(`\ufeff${head}\n${row('IMG_1.HEIC', 4, 'yes,no')}\n${row('IMG_2.HEIC', 4, 'no,yes')}\n`, {
        part,
      }),
    ).toBeNull();
    expect(await details.read(`${head}\n${row('IMG_3.HEIC', 4)}\n${row('IMG_3.HEIC', 5)}\n`, { part })).toBeNull();
    expect(details.get('img_1.heic', part)).toEqual({
      takenMs: Date.UTC(2022, 5, 4, 12, 11),
      deleted: false,
      hidden: true,
    });
    expect(details.get('IMG_2.HEIC', part)?.deleted).toBe(true);
    expect(details.get('IMG_3.HEIC', part)).toBeNull();
    expect(details.get('IMG_4.HEIC', part)).toBeNull();
    expect(details.size).toBe(3);
  });

  it("a name in two parts takes its own part's row, several CSVs in one part; another part's row only when all agree", async () => {
    const details = createPhotoDetails();
    await details.read(`${head}\n${row('IMG_1.HEIC', 1)}\n${row('IMG_9.HEIC', 9)}\n`, { part: 'Part 1 of 2' });
    await details.read(`${head}\n${row('IMG_2.HEIC', 2)}\n`, { part: 'Part 1 of 2' }); // Photo Details-1.csv
    await details.read(`${head}\n${row('IMG_1.HEIC', 11)}\n`, { part: 'Part 2 of 2' });
    const day = (name: string, part?: string) => new Date(details.get(name, part)?.takenMs ?? 0).getUTCDate();
    expect(day('IMG_1.HEIC', 'Part 1 of 2')).toBe(1);
    expect(day('IMG_1.HEIC', 'Part 2 of 2')).toBe(11);
    expect(day('IMG_2.HEIC', 'Part 1 of 2')).toBe(2);
    expect(day('IMG_9.HEIC', 'Part 2 of 2')).toBe(9); // listed by part 1 only
    expect(details.get('IMG_1.HEIC', 'Part 3 of 3')).toBeNull(); // two parts disagree
  });

  it('keeps only the rows of names wanted', async () => {
    const details = createPhotoDetails();
    await details.read(`${head}\n${row('IMG_1.HEIC', 1)}\n${row('IMG_2.HEIC', 2)}\n`, {
      part: 'p',
      wanted: (name) => name === 'img_2.heic',
    });
    expect(details.size).toBe(1);
    expect(details.get('IMG_1.HEIC', 'p')).toBeNull();
    expect(details.get('IMG_2.HEIC', 'p')).not.toBeNull();
  });

  it('says why a CSV cannot be used, keeping the rows before the damage', async () => {
    const details = createPhotoDetails();
    expect(await details.read('name,date\nIMG_1.HEIC,today\n', { part: 'p' })).toMatch(/no imgName column/);
    async function* damaged(): AsyncGenerator<string> {
      yield `${head}\n${row('IMG_1.HEIC', 1)}\n`;
      yield `IMG_2.HEIC,"${'x'.repeat(100_000)}\n`; // a row no export writes, past the record cap
    }
    expect(await details.read(damaged(), { part: 'p' })).toMatch(/cannot be read past line \d+/);
    expect(details.get('IMG_1.HEIC', 'p')).not.toBeNull();
  });

  it('streams a CSV chunk by chunk, keeping the rows wanted', async () => {
    // 9.5 MB of rows, generated as they are read: never one string, never one buffer (the
    // real binary reads one past the old 64 MB cap in test/e2e/icloud-exports.test.ts).
    const ROWS = 100_000;
    async function* csv(): AsyncGenerator<Buffer> {
      yield Buffer.from(`${head}\n`);
      const lines: string[] = [];
      for (let i = 0; i < ROWS; i++) {
        lines.push(
          `IMG_${i}.HEIC,${'c'.repeat(28)},no,no,${i % 2 === 0 ? 'no' : 'yes'},"Saturday June 4,2022 12:11 PM GMT",0,"x"`,
        );
        if (lines.length === 10_000) {
          yield Buffer.from(`${lines.join('\n')}\n`);
          lines.length = 0;
        }
      }
    }
    const wanted = new Set(['img_0.heic', 'img_1.heic', `img_${ROWS - 1}.heic`]);
    const details = createPhotoDetails();
    let bytes = 0;
    const counted = async function* () {
      for await (const chunk of csv()) {
        bytes += chunk.length;
        yield chunk;
      }
    };
    expect(await details.read(counted(), { part: 'p', wanted: (name) => wanted.has(name) })).toBeNull();
    expect(bytes).toBeGreaterThan(9_000_000);
    expect(details.size).toBe(3);
    expect(details.get(`IMG_${ROWS - 1}.HEIC`, 'p')?.deleted).toBe(true);
    expect(details.get('IMG_0.HEIC', 'p')?.deleted).toBe(false);
  }, 60_000);

  it('knows the CSV names of an export', () => {
    expect(['Photo Details.csv', 'Photo Details-1.csv', 'photo details-12.CSV'].every(isPhotoDetailsName)).toBe(true);
    expect(['Photo Details (1).csv', 'Albums.csv', 'Photo Details.json'].some(isPhotoDetailsName)).toBe(false);
  });
});
