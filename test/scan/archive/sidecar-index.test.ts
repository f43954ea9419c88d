import { describe, expect, it } from 'vitest';
import { createSidecarIndex, folderKey } from '../../../src/scan/archive/sidecar-index.js';

const json = (title: string, seconds: number): string =>
  JSON.stringify({ title, photoTakenTime: { timestamp: String(seconds) } });
const taken = (text: string | null): number | null =>
  text === null
    ? null
    : Number((JSON.parse(text) as { photoTakenTime: { timestamp: string } }).photoTakenTime.timestamp);

const GP = 'Takeout/Google Photos';

describe('the sidecar tree of a run', () => {
  it('a JSON whose name no rule gives is found by its title within its folder, when one JSON has it', () => {
    const index = createSidecarIndex();
    index.add(`${GP}/Concert/a1.json`, json('Konzert.jpg', 1));
    index.add(`${GP}/Concert/b2.json`, json('twice.jpg', 2));
    index.add(`${GP}/Concert/c3.json`, json('TWICE.jpg', 3));
    index.add(`${GP}/Other/d4.json`, json('elsewhere.jpg', 4));
    expect(taken(index.find(`${GP}/Concert/Konzert.jpg`).takeout)).toBe(1);
    expect(index.find(`${GP}/Concert/twice.jpg`).takeout).toBeNull();
    expect(index.find(`${GP}/Concert/elsewhere.jpg`).takeout).toBeNull(); // another folder's
    // A JSON added later to the folder is seen (the titles are read again).
    index.add(`${GP}/Concert/e5.json`, json('late.jpg', 5));
    expect(taken(index.find(`${GP}/Concert/late.jpg`).takeout)).toBe(5);
  });

  it("an album's photo takes the JSON of its year folder's copy, localized and with no-break spaces, when one year has it", () => {
    const index = createSidecarIndex();
    index.add(`${GP}/Photos de\u00a02023/IMG_1.jpg.supplemental-metadata.json`, json('IMG_1.jpg', 1));
    index.add(`${GP}/Fotos von 2022/IMG_2.jpg.json`, json('IMG_2.jpg', 2));
    index.add(`${GP}/Photos from 2021/IMG_2.jpg.json`, json('IMG_2.jpg', 3));
    expect(taken(index.find(`${GP}/Summer trip/IMG_1.jpg`).takeout)).toBe(1);
    expect(taken(index.find(`${GP}/Photos de 2023/IMG_1.jpg`).takeout)).toBe(1); // the same folder, spelled with a space
    expect(index.find(`${GP}/Summer trip/IMG_2.jpg`).takeout).toBeNull(); // two years say different things
    expect(index.find(`${GP}/Photos from 2021/IMG_1.jpg`).takeout).toBeNull(); // a year folder keeps to its own
  });

  it('counts the sidecars no media file claimed: left without their media', () => {
    const index = createSidecarIndex();
    index.add(`${GP}/2022/IMG_1.jpg.json`, json('IMG_1.jpg', 1));
    index.add(`${GP}/2022/IMG_1.json`, json('IMG_1.jpg', 1)); // a candidate of IMG_1.jpg too
    index.add(`${GP}/2022/IMG_9.jpg.json`, json('IMG_9.jpg', 9));
    index.add(`${GP}/2022/IMG_1.MP4.xmp`, '<x/>');
    index.add(`${GP}/2022/metadata.json`, '{"title":"2022","description":""}'); // an album's, no photo's
    index.find(`${GP}/2022/IMG_1.jpg`);
    expect(index.unclaimed().sort()).toEqual([`${GP}/2022/IMG_1.MP4.xmp`, `${GP}/2022/IMG_9.jpg.json`]);
    index.find(`${GP}/2022/IMG_1.MP4`);
    expect(index.unclaimed()).toEqual([`${GP}/2022/IMG_9.jpg.json`]);
  });

  it('keys folders in NFC with no-break spaces as spaces', () => {
    expect(folderKey('Takeout/Photos\u00a0de\u00a02023/x.jpg')).toEqual({
      dir: 'Takeout/Photos de 2023',
      base: 'x.jpg',
    });
    expect(folderKey('E\u0301te\u0301/x.jpg').dir).toBe('\u00c9t\u00e9');
    expect(folderKey('./a/b/x.jpg')).toEqual({ dir: 'a/b', base: 'x.jpg' });
  });
});
