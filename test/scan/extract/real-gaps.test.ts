import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ScanError } from '../../../src/errors.js';
import { HEAD_BYTES, createSidecarFinder, extractFile } from '../../../src/scan/extract/index.js';
import { parseMiniHeader } from '../../../src/scan/extract/mini.js';
import type { ByteSource, Extraction } from '../../../src/scan/types.js';

/**
 * The gaps a second corpus of real camera, phone and fuzzed files showed against exiftool:
 * each on a small file made with the real tools or byte surgery (files/make-gap-files.sh).
 */

const FILES = fileURLToPath(new URL('./files/', import.meta.url));
const LIBRARY = fileURLToPath(new URL('../../../fixtures/library/', import.meta.url));

function source(data: Uint8Array, headSize: number): ByteSource {
  return {
    size: data.length,
    head: data.subarray(0, headSize),
    read: async (offset, length) => data.subarray(offset, offset + length),
  };
}

/** Extracts from bytes in memory with the full head and with a 64-byte one: both must agree. */
async function extract(path: string, data: Uint8Array = readFileSync(path)): Promise<Extraction> {
  const run = (headSize: number) =>
    extractFile({ absPath: path, bytes: source(data, headSize), sidecars: createSidecarFinder() });
  const result = await run(HEAD_BYTES);
  expect(await run(64)).toEqual(result);
  return result;
}

async function errorCode(path: string, data: Uint8Array): Promise<string> {
  try {
    await extract(path, data);
  } catch (error) {
    expect(error).toBeInstanceOf(ScanError);
    return (error as ScanError).code;
  }
  throw new Error('extraction should have failed');
}

const warningCodes = (result: Extraction): string[] => (result.source.warnings ?? []).map((w) => w.code);

describe('a file cut inside its last box keeps the metadata before the cut', () => {
  const phone = join(FILES, 'phone.heic');
  const whole = readFileSync(phone);

  it('reads the whole phone HEIC without a warning', async () => {
    const result = await extract(phone);
    expect(result.media).toMatchObject({
      taken_at: '2024-05-18T12:02:11Z',
      latitude: 48.8584,
      longitude: 2.2945,
      device_make: 'Apple',
      device_model: 'iPhone 12',
    });
    expect(result.source).toEqual({ taken_at: 'exif_offset', coordinates: 'exif_gps' });
  });

  it.each([0.9, 0.5])(
    'a HEIC cut to %s of its bytes (inside mdat, after the Exif item) keeps time, place and make',
    async (share) => {
      const full = await extract(phone);
      const cut = await extract(phone, whole.subarray(0, Math.floor(whole.length * share)));
      expect(cut.media).toEqual(full.media);
      expect(cut.source.taken_at).toBe('exif_offset');
      expect(warningCodes(cut)).toEqual(['skipped_segment']);
      expect(cut.source.warnings![0]!.message).toMatch(/ends inside box 'mdat'/);
    },
  );

  it('a HEIC cut inside its Exif item, or inside meta, is truncated_file', async () => {
    const mdat = whole.indexOf(Buffer.from('mdat')) - 4;
    expect(await errorCode(phone, whole.subarray(0, mdat + 20))).toBe('truncated_file');
    expect(await errorCode(phone, whole.subarray(0, 100))).toBe('truncated_file');
  });

  it('a CR3 cut inside its last uuid box (the preview) keeps the CMT metadata', async () => {
    const result = await extract(join(FILES, 'cut.cr3'));
    expect(result.media).toMatchObject({
      taken_at: '2023-09-03T01:45:00Z',
      latitude: 36.1147,
      longitude: -115.1728,
      device_make: 'Canon',
      device_model: 'Canon EOS R6',
    });
    expect(warningCodes(result)).toEqual(['skipped_segment']);
    expect(result.source.warnings![0]!.message).toMatch(/ends inside box 'uuid'/);
  });

  it('an MP4 with moov first, cut inside mdat, is a video line with its duration, time and place', async () => {
    const path = join(LIBRARY, 'events/sao-paulo/IMG_5001.MOV');
    const data = readFileSync(path);
    const full = await extract(path);
    const cut = await extract(path, data.subarray(0, data.length - 100));
    expect(cut.media).toEqual(full.media);
    expect(cut.media).toMatchObject({ media_type: 'video', duration_seconds: 1, taken_at: '2024-11-17T00:30:00Z' });
    expect(warningCodes(cut)).toEqual(['skipped_segment']);
  });

  it('an MP4 cut before its moov (moov after mdat) is truncated_file, not corrupt_file', async () => {
    const path = join(FILES, 'moov-last-loci.mp4');
    const data = readFileSync(path);
    const mdat = data.indexOf(Buffer.from('mdat')) - 4;
    expect(await errorCode(path, data.subarray(0, mdat + 100))).toBe('truncated_file');
  });
});

describe('low-overhead HEIF (the mini box)', () => {
  it('reads the Exif and XMP chunks after the coded image', async () => {
    const result = await extract(join(FILES, 'mini.heic'));
    expect(result.media).toMatchObject({
      taken_at: '2025-01-04T08:30:00Z',
      media_type: 'photo',
      duration_seconds: null,
      device_make: 'Google',
      device_model: 'Pixel 9',
      device_lens_model: 'Pixel 9 back camera',
    });
    expect(result.source).toEqual({ taken_at: 'exif_offset', coordinates: null });
  });

  it('a mini file cut inside its image data (the Exif chunk comes after it) is truncated_file', async () => {
    const path = join(FILES, 'mini.heic');
    const data = readFileSync(path);
    expect(await errorCode(path, data.subarray(0, 200))).toBe('truncated_file');
  });

  it('finds the chunks behind an ICC profile, an alpha plane and compressed metadata', () => {
    // Hand-packed header: icc, exif, xmp, alpha; 4:4:4; 100x50; small sizes; compressed metadata.
    const bits: number[] = [];
    const put = (value: number, n: number): void => {
      for (let i = n - 1; i >= 0; i--) bits.push((value >> i) & 1);
    };
    put(0, 2);
    put(0, 1);
    put(0, 1);
    put(1, 1);
    put(1, 1);
    put(0, 1);
    put(0, 1); // version, codec types, float, full range, alpha, cicp, hdr
    put(1, 1);
    put(1, 1);
    put(1, 1);
    put(3, 2);
    put(5, 3); // icc, exif, xmp, 4:4:4, orientation 6
    put(0, 1);
    put(99, 7);
    put(49, 7); // small dimensions
    put(1, 1);
    put(2, 3); // 10-bit
    put(0, 1); // alpha not premultiplied
    put(0, 1);
    put(0, 1);
    put(0, 1); // small metadata, codec config and item data sizes
    put(299, 10); // icc 300 bytes
    put(5, 3);
    put(999, 15); // main config 5, main data 1000
    put(40, 15);
    put(2, 3); // alpha data 40, alpha config 2
    put(1, 1);
    put(63, 10);
    put(9, 10); // compressed; exif 64; xmp 10
    while (bits.length % 8) bits.push(0);
    const header = Uint8Array.from({ length: bits.length / 8 }, (_, i) =>
      Number.parseInt(bits.slice(i * 8, i * 8 + 8).join(''), 2),
    );
    const layout = parseMiniHeader(header, 1000);
    const exifAt = 1000 + header.length + 300 + 5 + 1000 + 40 + 2;
    expect(layout).toEqual({
      exif: { offset: exifAt, length: 64 },
      xmp: { offset: exifAt + 64, length: 10 },
      compressed: true,
    });
  });
});

describe('a HEIF image sequence (msf1, moov, no meta)', () => {
  it('is a photo without a duration; its time is the movie header creation time (UTC)', async () => {
    const result = await extract(join(FILES, 'sequence.heic'));
    expect(result.media).toMatchObject({
      media_type: 'photo',
      duration_seconds: null,
      taken_at: '2023-06-01T12:00:00Z',
    });
    expect(result.source).toEqual({ taken_at: 'video_mvhd', coordinates: null });
  });

  it('the same track under a video brand keeps its duration', async () => {
    const data = Uint8Array.from(readFileSync(join(FILES, 'sequence.heic')));
    data.set(Buffer.from('isom\0\0\0\0isomiso8mp41'), 8);
    const result = await extract(join(FILES, 'sequence.mp4'), data);
    expect(result.media).toMatchObject({ media_type: 'video', duration_seconds: 1 });
  });
});

describe('EXIF values written with the wrong TIFF type', () => {
  it('reads GPS coordinates stored as ASCII text, as exiftool does', async () => {
    const result = await extract(join(FILES, 'gps-ascii.jpg'));
    // 51 30 25.92 N, 0 7 39.36 W
    expect(result.media).toMatchObject({ latitude: 51.5072, longitude: -0.1276, taken_at: '2022-06-21T06:15:00Z' });
    expect(result.source).toEqual({ taken_at: 'exif_offset', coordinates: 'exif_gps' });
  });

  it.each<[string, number | null]>([
    ['51 30 25.92', 51.5072],
    ['51,30,25.92', 51.5072],
    ['51 deg 30\' 25.92"', 51.5072],
    ['51.5072', 51.5072],
    ['51 30.432', 51.5072],
    ['-0 7 39.36', -0.1276],
    ['0 7 39.36 W', -0.1276],
    ['1 2 3 4', null],
    ['', null],
    ['north', null],
    ['51 61 0', null],
  ])('GPS text %j -> %s', async (text, expected) => {
    const { dmsToDecimal } = await import('../../../src/scan/extract/coordinates.js');
    const value = dmsToDecimal(text);
    if (expected === null) expect(value).toBeNull();
    else expect(value).toBeCloseTo(expected, 4);
  });

  it('reads Make and Model stored as numbers as text (SHORT 1234, LONG 50710)', async () => {
    const result = await extract(join(FILES, 'make-number.jpg'));
    expect(result.media).toMatchObject({
      device_make: '1234',
      device_model: '50710',
      taken_at: '2020-02-02T10:00:00Z',
    });
    expect(result.source.warnings).toBeUndefined();
  });

  it('tagText: numbers, number lists and bytes as text', async () => {
    const { tagText } = await import('../../../src/scan/extract/text.js');
    expect(tagText(1234)).toBe('1234');
    expect(tagText([1, 2])).toBe('1 2');
    expect(tagText(Uint8Array.from([0x58, 0x2d, 0x54, 0x34, 0, 0x41]))).toBe('X-T4');
    expect(tagText(' Canon ')).toBe('Canon');
    expect(tagText(Number.NaN)).toBeNull();
    expect(tagText(undefined)).toBeNull();
  });
});

describe('a malformed GPSDateStamp is no GPS clock', () => {
  it('a date stamp holding date and time gives no offset: the zone at the place decides (rule c)', async () => {
    // Local 20:15 in New York; GPSTimeStamp 03:15:29. Read as a GPS clock (date 2024-07-13)
    // it would give -07:00 and 03:15Z; the zone at the place gives EDT, -04:00.
    const result = await extract(join(FILES, 'gps-datestamp-time.jpg'));
    expect(result.source.taken_at).toBe('timezone_lookup');
    expect(result.media.taken_at).toBe('2024-07-13T00:15:00Z');
  });

  it.each<[unknown, number | null]>([
    ['2024:07:13', Date.UTC(2024, 6, 13, 0, 15, 29)],
    [' 2024-07-13 ', Date.UTC(2024, 6, 13, 0, 15, 29)],
    ['2024:07:13 00:15:29', null],
    ['2024:07:13T00:15:29Z', null],
    ['2024:07:13x', null],
  ])('gpsUtcMs(%j, 00:15:29) -> %s', async (stamp, expected) => {
    const { gpsUtcMs } = await import('../../../src/scan/extract/gps-time.js');
    expect(gpsUtcMs(stamp, [0, 15, 29])).toBe(expected);
  });
});

describe('XMP', () => {
  it('capture time: photoshop:DateCreated (with its offset) wins over xmp:CreateDate (a scan a year later)', async () => {
    const result = await extract(join(FILES, 'xmp-date-order.jpg'));
    expect(result.media.taken_at).toBe('2019-05-04T16:30:00Z');
    expect(result.source.taken_at).toBe('xmp');
  });

  it.each<[string, Record<string, string>, string | null]>([
    [
      'DateTimeOriginal first',
      { dto: '2019-05-04T18:30:00+02:00', created: '2019-05-03T10:00:00+02:00', create: '2020-01-01T00:00:00Z' },
      '2019-05-04T16:30:00.000Z',
    ],
    [
      'DateCreated before CreateDate',
      { created: '2019-05-04T18:30:00+02:00', create: '2020-05-20T10:00:00-04:00' },
      '2019-05-04T16:30:00.000Z',
    ],
    ['CreateDate last', { create: '2020-05-20T10:00:00-04:00' }, '2020-05-20T14:00:00.000Z'],
    [
      'the offset of DateCreated on the same clock reading',
      { dto: '2019-05-04T18:30:00', created: '2019-05-04T18:30:00+02:00' },
      '2019-05-04T16:30:00.000Z',
    ],
    [
      'no offset borrowed from another reading',
      { dto: '2019-05-04T18:30:00', created: '2019-05-04T18:31:00+02:00' },
      null,
    ],
    [
      'an unreadable DateTimeOriginal falls through',
      { dto: '0000:00:00 00:00:00', created: '2019-05-04T18:30:00+02:00' },
      '2019-05-04T16:30:00.000Z',
    ],
  ])('%s', async (_name, values, instant) => {
    const { parseXmp } = await import('../../../src/scan/extract/xmp.js');
    const attrs = [
      values.dto === undefined ? '' : ` exif:DateTimeOriginal="${values.dto}"`,
      values.created === undefined ? '' : ` photoshop:DateCreated="${values.created}"`,
      values.create === undefined ? '' : ` xmp:CreateDate="${values.create}"`,
    ].join('');
    const date = parseXmp(`<rdf:RDF><rdf:Description${attrs}/></rdf:RDF>`).date;
    expect(date).not.toBeNull();
    const utc =
      date!.offsetMinutes === null ? null : new Date(date!.local.wallMs - date!.offsetMinutes * 60_000).toISOString();
    expect(utc).toBe(instant);
  });

  it('reads an APP1 XMP segment with the non-standard header XMP\\0://ns.adobe.com/xap/1.0/, with a warning', async () => {
    const result = await extract(join(FILES, 'xmp-header.jpg'));
    expect(result.media).toMatchObject({
      taken_at: '2021-11-05T10:20:00Z',
      device_make: 'FUJIFILM',
      device_model: 'X-T4',
    });
    expect(result.source.taken_at).toBe('xmp');
    expect(warningCodes(result)).toEqual(['nonstandard_header']);
    expect(result.source.warnings![0]!.message).toContain("'XMP\\0://ns.adobe.com/xap/1.0/\\0'");
  });

  it('reads the XMP of a DNG (TIFF tag 700) whose EXIF holds no date, place or make', async () => {
    const result = await extract(join(FILES, 'xmp-only.dng'));
    expect(result.media).toMatchObject({
      taken_at: '2022-12-24T17:00:00Z',
      latitude: 47.66,
      longitude: 9.18,
      device_make: 'Leica Camera AG',
      device_model: 'LEICA Q2',
    });
    expect(result.source).toEqual({ taken_at: 'xmp', coordinates: 'xmp' });
  });

  it('never takes IPTC LocationShown (the place depicted) as where the camera was', async () => {
    const result = await extract(join(FILES, 'location-shown.jpg'));
    expect(result.media).toMatchObject({ latitude: null, longitude: null, taken_at: '2023-08-12T20:00:00Z' });
    expect(result.source.coordinates).toBeNull();
  });

  it('takes IPTC LocationCreated (where the photo was taken) when nothing else gives a position', async () => {
    const result = await extract(join(FILES, 'location-created.jpg'));
    expect(result.media).toMatchObject({ latitude: 55.9521, longitude: -3.1965 });
    expect(result.source.coordinates).toBe('xmp');
    const { parseXmp } = await import('../../../src/scan/extract/xmp.js');
    const own = parseXmp(`<rdf:RDF xmlns:Iptc4xmpExt="http://iptc.org/std/Iptc4xmpExt/2008-02-29/"><rdf:Description>
      <Iptc4xmpExt:LocationCreated><rdf:Bag><rdf:li exif:GPSLatitude="10.5" exif:GPSLongitude="20.5"/></rdf:Bag></Iptc4xmpExt:LocationCreated>
      <exif:GPSLatitude>1.5</exif:GPSLatitude><exif:GPSLongitude>2.5</exif:GPSLongitude>
    </rdf:Description></rdf:RDF>`);
    expect(own.coordinates).toEqual({ latitude: 1.5, longitude: 2.5 });
    expect(own.locationCreated).toEqual({ latitude: 10.5, longitude: 20.5 });
  });

  it("a LocationCreated in an XMP sidecar never overrides the camera's EXIF GPS", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'camroll-location-'));
    try {
      writeFileSync(join(dir, 'IMG_1.jpg'), readFileSync(join(FILES, 'gps-ascii.jpg')));
      writeFileSync(
        join(dir, 'IMG_1.jpg.xmp'),
        `<rdf:RDF xmlns:Iptc4xmpExt="http://iptc.org/std/Iptc4xmpExt/2008-02-29/">
        <rdf:Description><Iptc4xmpExt:LocationCreated rdf:parseType="Resource" exif:GPSLatitude="55,57.126N"
        exif:GPSLongitude="3,11.79W"/></rdf:Description></rdf:RDF>`,
      );
      const result = await extract(join(dir, 'IMG_1.jpg'));
      expect(result.media).toMatchObject({ latitude: 51.5072, longitude: -0.1276 });
      expect(result.source.coordinates).toBe('exif_gps');
      // Without the file's own GPS, the sidecar's LocationCreated is the position.
      writeFileSync(join(dir, 'IMG_2.jpg'), readFileSync(join(FILES, 'bare.jpg')));
      writeFileSync(join(dir, 'IMG_2.jpg.xmp'), readFileSync(join(dir, 'IMG_1.jpg.xmp')));
      const bare = await extract(join(dir, 'IMG_2.jpg'));
      expect(bare.media).toMatchObject({ latitude: 55.9521, longitude: -3.1965 });
      expect(bare.source.coordinates).toBe('xmp');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
