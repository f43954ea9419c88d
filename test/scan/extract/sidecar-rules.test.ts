import { describe, expect, it } from 'vitest';
import {
  pickCandidate,
  takeoutJsonCandidates,
  takeoutTitle,
  takeoutYearFolder,
  xmpCandidates,
} from '../../../src/scan/extract/sidecar-names.js';
import { createSidecarFinder } from '../../../src/scan/extract/sidecars.js';
import { parseTakeout } from '../../../src/scan/extract/takeout.js';
import { checkXmpLimits, parseXmp, XMP_LIMITS } from '../../../src/scan/extract/xmp.js';
import { crowdedJson, deepJson, deepXmp, hiddenAttributesXmp, longXmp, wideXmp } from '../../helpers/hostile-corpus.js';
import { parseDateText } from '../../../src/scan/extract/dates.js';
import type { TimeEvidence } from '../../../src/scan/extract/taken-at.js';
import { resolveTakenAt } from '../../../src/scan/extract/taken-at.js';

const listing = (...names: string[]) => new Map(names.map((n) => [n.toLowerCase(), n]));
const LONG = 'a_very_long_file_name_taken_at_the_concert_2024_07_12.jpg'; // 57 characters

describe('Takeout JSON name matching', () => {
  it.each([
    ['IMG_0001.jpg', ['IMG_0001.jpg.json'], 'IMG_0001.jpg.json'],
    ['IMG_0001.jpg', ['IMG_0001.jpg.supplemental-metadata.json'], 'IMG_0001.jpg.supplemental-metadata.json'],
    ['IMG_0001.jpg', ['IMG_0001.jpg.supplemental-metad.json'], 'IMG_0001.jpg.supplemental-metad.json'],
    ['IMG_0001.jpg', ['IMG_0001.jpg.supp.json'], 'IMG_0001.jpg.supp.json'],
    ['IMG_0001.jpg', ['IMG_0001.JPG.JSON'], 'IMG_0001.JPG.JSON'],
    ['IMG_0001(1).jpg', ['IMG_0001.jpg.json', 'IMG_0001.jpg(1).json'], 'IMG_0001.jpg(1).json'],
    ['IMG_0001(1).jpg', ['IMG_0001.jpg.supplemental-metadata(1).json'], 'IMG_0001.jpg.supplemental-metadata(1).json'],
    ['IMG_0001-edited.jpg', ['IMG_0001.jpg.json'], 'IMG_0001.jpg.json'],
    ['IMG_0001-bearbeitet.jpg', ['IMG_0001.jpg.supplemental-metadata.json'], 'IMG_0001.jpg.supplemental-metadata.json'],
    [LONG, [`${LONG.slice(0, 46)}.json`], `${LONG.slice(0, 46)}.json`],
    [
      'PXL_20240712_201530123.jpg',
      ['PXL_20240712_201530123.jpg.supplemental-metad.json'],
      'PXL_20240712_201530123.jpg.supplemental-metad.json',
    ],
    ['IMG_0001.jpg', ['IMG_0001.json'], 'IMG_0001.json'],
    ['IMG_0001.jpg', ['IMG_0002.jpg.json', 'IMG_0001.jpg.xmp'], null],
    ['IMG_0001(1).jpg', ['IMG_0001.jpg(2).json'], null],
  ])('%s with %j -> %s', (base, names, expected) => {
    expect(pickCandidate(takeoutJsonCandidates(base), listing(...names))).toBe(expected);
  });

  it('prefers the exact name over the truncated and extension-less ones', () => {
    const names = listing('IMG_0001.json', 'IMG_0001.jpg.supp.json', 'IMG_0001.jpg.json');
    expect(pickCandidate(takeoutJsonCandidates('IMG_0001.jpg'), names)).toBe('IMG_0001.jpg.json');
  });
});

const SUPPLEMENTAL = '.supplemental-metadata';

describe('Takeout JSON names: the counter in both positions, every cut under the 51-character cap', () => {
  // Every cut Takeout makes of `.supplemental-metadata`, for a short and a long name.
  const cuts = Array.from({ length: SUPPLEMENTAL.length - 1 }, (_, i) => SUPPLEMENTAL.slice(0, i + 2));
  const LONG_BASE = 'Screenshot_20240712-201530_Concert_Live'; // 39 characters with no extension

  it.each(cuts)('IMG_1(1).jpg finds %s with the counter at the end and in place', (suffix) => {
    for (const json of [`IMG_1.jpg${suffix}(1).json`, `IMG_1(1).jpg${suffix}.json`])
      expect(pickCandidate(takeoutJsonCandidates('IMG_1(1).jpg'), listing(json, `IMG_1.jpg${suffix}.json`))).toBe(json);
  });

  it.each(cuts)('a long name cut to the cap, the counter counted in or not: %s', (suffix) => {
    const base = `${LONG_BASE}(2).jpg`;
    const core = `${LONG_BASE}.jpg${suffix}`;
    const inPlace = `${LONG_BASE}(2).jpg${suffix}`;
    for (const json of [
      `${core.slice(0, 46)}(2).json`,
      `${core.slice(0, 43)}(2).json`,
      `${inPlace.slice(0, 46)}.json`,
      `${core}(2).json`, // 2026: no longer cut
      `${inPlace}.json`,
    ])
      expect(pickCandidate(takeoutJsonCandidates(base), listing(json))).toBe(json);
  });

  it('a name no longer cut (2026 exports) is found whole', () => {
    const json = `${LONG}.supplemental-metadata.json`;
    expect(pickCandidate(takeoutJsonCandidates(LONG), listing(json))).toBe(json);
  });

  it.each([
    ['IMG_1(1).MP4', 'IMG_1.HEIC.supplemental-metadata(1).json'],
    ['IMG_1(1).MP4', 'IMG_1(1).HEIC.supplemental-metadata.json'],
    ['IMG_1.MOV', 'IMG_1.JPG.json'],
    ['IMG_1.MP4', 'IMG_1.HEIC.supplemental-meta.json'],
  ])("the video half of a Live Photo %s shares its still's %s", (video, json) => {
    expect(pickCandidate(takeoutJsonCandidates(video), listing(json))).toBe(json);
  });

  it("a video's own JSON comes before its still's; a photo never takes a video's", () => {
    const names = listing('IMG_1.HEIC.json', 'IMG_1.MP4.json');
    expect(pickCandidate(takeoutJsonCandidates('IMG_1.MP4'), names)).toBe('IMG_1.MP4.json');
    expect(pickCandidate(takeoutJsonCandidates('IMG_1.HEIC'), listing('IMG_1.MP4.json'))).toBeNull();
    expect(pickCandidate(takeoutJsonCandidates('IMG_1(1).MP4'), listing('IMG_1.HEIC.json'))).toBeNull();
  });

  it('takeoutTitle reads the title member, nothing else', () => {
    expect(takeoutTitle('{"title":"IMG_0001.JPG","photoTakenTime":{"timestamp":"1"}}')).toBe('IMG_0001.JPG');
    expect(takeoutTitle('{"title":7}')).toBeNull();
    expect(takeoutTitle('["IMG_0001.JPG"]')).toBeNull();
    expect(takeoutTitle('not json')).toBeNull();
  });

  it.each([
    ['Photos from 2023', 2023],
    ['Fotos von 2023', 2023],
    ['Photos de 2023', 2023],
    ['Photos\u00a0de\u00a02023', 2023],
    ['Photos from\u00a02019', 2019],
    ['Fotos de 2021', 2021],
    ['Foto del 2022', 2022],
    ['Concert 2023', null],
    ['Photos from 1850', null],
  ])('year folder %j -> %s', (name, year) => {
    expect(takeoutYearFolder(name)).toBe(year);
  });
});

describe("a folder's JSON by its title, last of all", () => {
  const json = (title: string, seconds: number): string =>
    JSON.stringify({ title, photoTakenTime: { timestamp: String(seconds) } });
  const finder = (files: Record<string, string>) => {
    const reads: string[] = [];
    const found = createSidecarFinder({
      listDir: async () => Object.keys(files),
      readText: async (path) => {
        reads.push(path);
        const text = files[path.slice(path.lastIndexOf('/') + 1)];
        if (text === undefined) throw new Error('gone');
        return text;
      },
    });
    return { found, reads };
  };

  it('a JSON whose name no rule gives is found by its title', async () => {
    const { found } = finder({ 'Konzert.jpg': '', 'a1b2c3.json': json('Konzert.jpg', 1720829730) });
    expect((await found.load('/lib/Konzert.jpg')).takeout?.takenMs).toBe(1720829730000);
  });

  it('the name rules come first, and a title two JSONs share names neither', async () => {
    const { found } = finder({
      'IMG_1.jpg.json': json('other.jpg', 1),
      'x.json': json('IMG_1.jpg', 2),
      'y.json': json('IMG_2.jpg', 3),
      'z.json': json('img_2.JPG', 4),
    });
    expect((await found.load('/lib/IMG_1.jpg')).takeout?.takenMs).toBe(1000);
    expect((await found.load('/lib/IMG_2.jpg')).takeout).toBeNull();
  });

  it("reads a folder's JSONs for their titles once, and only on a miss", async () => {
    const { found, reads } = finder({ 'IMG_1.jpg.json': json('IMG_1.jpg', 1), 'q.json': json('IMG_3.jpg', 3) });
    await found.load('/lib/IMG_1.jpg');
    expect(reads).toEqual(['/lib/IMG_1.jpg.json']);
    await found.load('/lib/IMG_3.jpg');
    await found.load('/lib/IMG_4.jpg');
    expect(reads.filter((path) => path.endsWith('q.json'))).toHaveLength(2); // the title pass, then the read
  });
});

describe('XMP name matching', () => {
  it.each([
    ['DSC_0001.NEF', ['DSC_0001.xmp', 'DSC_0001.NEF.xmp'], 'DSC_0001.NEF.xmp'],
    ['DSC_0001.NEF', ['DSC_0001.XMP'], 'DSC_0001.XMP'],
    ['DSC_0001.NEF', ['DSC_0002.xmp'], null],
  ])('%s with %j -> %s', (base, names, expected) => {
    expect(pickCandidate(xmpCandidates(base), listing(...names))).toBe(expected);
  });
});

describe('parseTakeout', () => {
  it.each([
    [
      { photoTakenTime: { timestamp: '1720829730' }, geoDataExif: { latitude: 40.7505, longitude: -73.9934 } },
      1720829730000,
      { latitude: 40.7505, longitude: -73.9934 },
    ],
    [
      {
        photoTakenTime: { timestamp: '0' },
        geoDataExif: { latitude: 0, longitude: 0 },
        geoData: { latitude: -33.8568, longitude: 151.2153 },
      },
      null,
      { latitude: -33.8568, longitude: 151.2153 },
    ],
    [{ photoTakenTime: { timestamp: 1720829730 }, geoData: { latitude: 0, longitude: 0 } }, 1720829730000, null],
    [{ title: 'x' }, null, null],
  ])('%j', (json, takenMs, coordinates) => {
    expect(parseTakeout(JSON.stringify(json))).toEqual({ takenMs, coordinates, warnings: [], origin: {} });
  });

  it.each([
    // What coercion made of them: (40.75, 1), 1e9 s, 12 s, and so on. Takeout writes numbers.
    [{ geoData: { latitude: '40.75', longitude: [1] } }, ['geoData.latitude', 'geoData.longitude']],
    [
      { geoDataExif: { latitude: true, longitude: 2 }, geoData: { latitude: 3, longitude: 4 } },
      ['geoDataExif.latitude'],
    ],
    [{ geoData: { latitude: null, longitude: 4 } }, ['geoData.latitude']],
    [{ photoTakenTime: 'yesterday', geoData: 'here' }, ['photoTakenTime', 'geoData']],
    [{ photoTakenTime: { timestamp: '1e9' } }, ['photoTakenTime.timestamp']],
    [{ photoTakenTime: { timestamp: ' 12' } }, ['photoTakenTime.timestamp']],
    [{ photoTakenTime: { timestamp: [1720829730] } }, ['photoTakenTime.timestamp']],
    [{ photoTakenTime: { timestamp: 1720829730.5 } }, ['photoTakenTime.timestamp']],
  ])('a member of the wrong type in %j is a warning, never a value', (json, members) => {
    const parsed = parseTakeout(JSON.stringify(json))!;
    expect(parsed.takenMs).toBeNull();
    // geoData stands in when geoDataExif is of the wrong type: only numbers are ever a place.
    const fallback = (json as { geoDataExif?: unknown; geoData?: { latitude: unknown } }).geoDataExif
      ? { latitude: 3, longitude: 4 }
      : null;
    expect(parsed.coordinates).toEqual(fallback);
    expect(parsed.warnings.map((w) => w.code)).toEqual(members.map(() => 'skipped_sidecar'));
    for (const [i, member] of members.entries()) expect(parsed.warnings[i]!.message).toContain(member);
  });

  it.each([
    ['1.3 million empty objects', crowdedJson(1_300_000), /more than 10000 objects and arrays/],
    ['arrays 100,000 deep', deepJson(100_000), /deeper than 64 levels/],
  ])('leaves out a JSON of %s before parsing it, with a warning', (_name, text, message) => {
    expect(parseTakeout(text)).toEqual({
      takenMs: null,
      coordinates: null,
      warnings: [{ code: 'skipped_sidecar', message: expect.stringMatching(message) }],
      origin: {},
    });
  });

  it('counts only structure: brackets inside strings are text', () => {
    const text = JSON.stringify({ title: '{['.repeat(20_000), photoTakenTime: { timestamp: '1720829730' } });
    expect(parseTakeout(text)).toEqual({ takenMs: 1720829730000, coordinates: null, warnings: [], origin: {} });
  });

  it('says what the wrong value was, shortened', () => {
    const parsed = parseTakeout(JSON.stringify({ geoData: { latitude: 'x'.repeat(10_000), longitude: 1 } }))!;
    expect(parsed.warnings[0]!.message.length).toBeLessThan(200);
    expect(parsed.warnings[0]!.message).toMatch(/geoData\.latitude is "x+…, not a number/);
  });

  it('is null for non-JSON and non-objects', () => {
    expect(parseTakeout('not json')).toBeNull();
    expect(parseTakeout('[1,2]')).toBeNull();
  });
});

describe('parseXmp', () => {
  it('reads attribute-form properties', () => {
    const xmp = parseXmp(`<x:xmpmeta><rdf:RDF><rdf:Description rdf:about=""
      exif:DateTimeOriginal="2024-07-12T20:15:30.25-04:00" exif:GPSLatitude="40,45.03N"
      exif:GPSLongitude="73,59.604W" tiff:Make="Canon" tiff:Model="EOS R6" aux:Lens="RF24-105mm"/></rdf:RDF></x:xmpmeta>`);
    expect(xmp.date?.offsetMinutes).toBe(-240);
    expect(new Date(xmp.date!.local.wallMs).toISOString()).toBe('2024-07-12T20:15:30.250Z');
    expect(xmp.coordinates).toEqual({ latitude: 40.7505, longitude: -73.9934 });
    expect([xmp.make, xmp.model, xmp.lensModel]).toEqual(['Canon', 'EOS R6', 'RF24-105mm']);
  });

  it('reads element-form properties and falls back through the date properties', () => {
    const xmp = parseXmp(`<rdf:Description><exif:DateTimeOriginal>0000:00:00 00:00:00</exif:DateTimeOriginal>
      <xmp:CreateDate>2023-12-09T19:30:00</xmp:CreateDate></rdf:Description>`);
    expect(xmp.date?.offsetMinutes).toBeNull();
    expect(new Date(xmp.date!.local.wallMs).toISOString()).toBe('2023-12-09T19:30:00.000Z');
    expect(xmp.coordinates).toBeNull();
  });

  it('ignores a date without a time', () => {
    expect(parseXmp('<rdf:Description photoshop:DateCreated="2024-07-12"/>').date).toBeNull();
  });
});

describe('resolveTakenAt', () => {
  const none: TimeEvidence = { xmp: null, takeoutMs: null, exif: null, gpsMs: null, video: null, mvhdMs: null };
  const nyc = { latitude: 40.7505, longitude: -73.9934 };
  const zones = async () => (lat: number) => (lat > 0 ? ['America/New_York'] : ['Australia/Sydney']);
  const noZones = async () => {
    throw new Error('zone lookup must not be needed');
  };
  const d = (text: string) => parseDateText(text);

  it.each<[string, Partial<TimeEvidence>, boolean, string | null, string | null]>([
    ['EXIF offset', { exif: d('2024-07-12T20:00:00-04:00') }, false, '2024-07-13T00:00:00Z', 'exif_offset'],
    [
      'XMP offset beats EXIF',
      { xmp: d('2024-07-12T21:00:00-04:00'), exif: d('2024-07-12T20:00:00-04:00') },
      false,
      '2024-07-13T01:00:00Z',
      'xmp',
    ],
    [
      'Takeout beats EXIF offset',
      { takeoutMs: Date.UTC(2024, 6, 13, 2), exif: d('2024-07-12T20:00:00-04:00') },
      false,
      '2024-07-13T02:00:00Z',
      'takeout',
    ],
    [
      'XMP offset beats Takeout',
      { takeoutMs: Date.UTC(2024, 6, 13, 2), xmp: d('2024-07-12T21:00:00-04:00') },
      false,
      '2024-07-13T01:00:00Z',
      'xmp',
    ],
    [
      'XMP local keeps the EXIF offset when equal',
      { xmp: d('2024-07-12T20:00:00'), exif: d('2024-07-12T20:00:00-04:00') },
      false,
      '2024-07-13T00:00:00Z',
      'exif_offset',
    ],
    [
      'GPS time',
      { exif: d('2024-07-12T20:00:00'), gpsMs: Date.UTC(2024, 6, 13, 0, 1) },
      false,
      '2024-07-13T00:00:00Z',
      'gps_time',
    ],
    ['zone at the coordinates', { exif: d('2024-07-12T20:00:00') }, true, '2024-07-13T00:00:00Z', 'timezone_lookup'],
    [
      'video creationdate',
      { video: d('2024-07-12T20:00:00-0400'), mvhdMs: Date.UTC(2024, 6, 13, 0, 0, 5) },
      false,
      '2024-07-13T00:00:00Z',
      'video_creationdate',
    ],
    ['mvhd', { mvhdMs: Date.UTC(2024, 6, 13, 0, 0, 5) }, false, '2024-07-13T00:00:05Z', 'video_mvhd'],
    ['mvhd before 2000 ignored', { mvhdMs: Date.UTC(1999, 11, 31) }, false, null, null],
    ['local time alone', { exif: d('2024-07-12T20:00:00') }, false, null, null],
    ['nothing', {}, true, null, null],
  ])('%s', async (_name, evidence, withCoords, expected, source) => {
    const result = await resolveTakenAt(
      { ...none, ...evidence },
      withCoords ? nyc : null,
      withCoords ? zones : noZones,
    );
    expect(result).toEqual({ taken_at: expected, source });
  });
});

describe('XMP limits', () => {
  it.each([
    ['150,000 attributes', wideXmp(150_000), /more than 10000 attributes/],
    ['attributes behind a > in a quoted value', hiddenAttributesXmp(20_000), /more than 10000 attributes/],
    ['60,000 elements', longXmp(60_000), /more than 10000 elements/],
    ['100,000 levels', deepXmp(100_000), /deeper than 64 levels/],
  ])('refuses %s before building anything', (_name, text, message) => {
    expect(() => checkXmpLimits(text)).toThrow(message);
    expect(() => parseXmp(text)).toThrow(message);
  });

  it('reads a packet at the limits', () => {
    const atLimit = `<rdf:Description exif:DateTimeOriginal="2024-07-12T20:15:30" ${Array.from(
      { length: XMP_LIMITS.attributes - 1 },
      (_, i) => `a${i}="1"`,
    ).join(' ')}/>`;
    expect(parseXmp(atLimit).date).not.toBeNull();
    expect(() => checkXmpLimits(longXmp(XMP_LIMITS.elements - 10))).not.toThrow();
  });
});
