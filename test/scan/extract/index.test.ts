import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { ScanError } from '../../../src/errors.js';
import type { ByteSource } from '../../../src/scan/types.js';
import { HEAD_BYTES, createSidecarFinder, extractFile } from '../../../src/scan/extract/index.js';
import { wideXmp } from '../../helpers/hostile-corpus.js';

const FILES = fileURLToPath(new URL('./files/', import.meta.url));
const work = mkdtempSync(join(tmpdir(), 'camroll-extract-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** A ByteSource over bytes in memory, with a head of `headSize` so reads beyond it are exercised. */
function source(data: Uint8Array, headSize = HEAD_BYTES): ByteSource {
  return {
    size: data.length,
    head: data.subarray(0, headSize),
    read: async (offset, length) => data.subarray(offset, offset + length),
  };
}

async function extract(absPath: string, data = readFileSync(absPath), headSize = HEAD_BYTES) {
  return extractFile({ absPath, bytes: source(data, headSize), sidecars: createSidecarFinder() });
}

async function failure(absPath: string, data: Uint8Array, bytes?: ByteSource): Promise<ScanError> {
  try {
    await extractFile({ absPath, bytes: bytes ?? source(data), sidecars: createSidecarFinder() });
  } catch (error) {
    expect(error).toBeInstanceOf(ScanError);
    return error as ScanError;
  }
  throw new Error('extraction should have failed');
}

describe('extractFile on real files', () => {
  it.each([
    [
      'offset.jpg',
      {
        taken_at: '2024-07-13T00:15:30.123Z',
        latitude: 40.7505,
        longitude: -73.9934,
        device_make: 'Apple',
        device_model: 'iPhone 15',
        device_lens_model: 'iPhone 15 back camera',
      },
      { taken_at: 'exif_offset', coordinates: 'exif_gps' },
    ],
    [
      'gps-time.jpg',
      { taken_at: '2024-07-13T00:15:30Z', latitude: 40.7505 },
      { taken_at: 'gps_time', coordinates: 'exif_gps' },
    ],
    [
      'zone.jpg',
      { taken_at: '2024-07-13T00:15:30Z', longitude: -73.9934 },
      { taken_at: 'timezone_lookup', coordinates: 'exif_gps' },
    ],
    ['dst-gap.jpg', { taken_at: '2024-03-10T07:30:00Z' }, { taken_at: 'timezone_lookup', coordinates: 'exif_gps' }],
    [
      'bare.jpg',
      { taken_at: null, latitude: null, longitude: null, device_make: null },
      { taken_at: null, coordinates: null },
    ],
    [
      'exif.png',
      { taken_at: '2023-12-09T08:40:00Z', latitude: -33.8568, longitude: 151.2153, device_model: 'Pixel 8' },
      { taken_at: 'exif_offset', coordinates: 'exif_gps' },
    ],
    [
      'exif.webp',
      { taken_at: '2022-08-20T09:30:00Z', latitude: 35.7056, longitude: 139.7519 },
      { taken_at: 'timezone_lookup', coordinates: 'exif_gps' },
    ],
    [
      'exif.heic',
      { taken_at: '2024-03-30T19:30:00Z', latitude: 51.556, longitude: -0.2795, device_make: 'Apple' },
      { taken_at: 'timezone_lookup', coordinates: 'exif_gps' },
    ],
    [
      'exif.tif',
      { taken_at: '2024-10-26T18:30:00Z', latitude: 48.8386, device_make: 'Nikon', device_lens_model: '24-70' },
      { taken_at: 'timezone_lookup', coordinates: 'exif_gps' },
    ],
    [
      'apple-keys.mov',
      {
        taken_at: '2024-07-13T00:15:30Z',
        latitude: 40.7505,
        longitude: -73.9934,
        media_type: 'video',
        duration_seconds: 1,
        device_make: 'Apple',
        device_model: 'iPhone 15',
      },
      { taken_at: 'video_creationdate', coordinates: 'video_iso6709' },
    ],
    [
      'moov-last-loci.mp4',
      {
        taken_at: '2023-12-09T08:40:00Z',
        latitude: -33.856796,
        longitude: 151.215286,
        media_type: 'video',
        duration_seconds: 2,
      },
      { taken_at: 'video_mvhd', coordinates: 'video_loci' },
    ],
    [
      'moov-first.mp4',
      { taken_at: null, latitude: null, media_type: 'video', duration_seconds: 1 },
      { taken_at: null, coordinates: null },
    ],
    [
      'udta-xyz.mov',
      { taken_at: null, latitude: 39.6654, longitude: -105.2057, media_type: 'video' },
      { taken_at: null, coordinates: 'video_iso6709' },
    ],
  ])('%s', async (name, media, source) => {
    const path = join(FILES, name);
    const result = await extract(path);
    expect(result.media).toMatchObject({ filename: name, media_type: 'photo', ...media });
    expect(result.source).toEqual(source);
    // The same answer when only the first 64 bytes come as the head: everything else is read on demand.
    expect(await extract(path, readFileSync(path), 64)).toEqual(result);
  });
});

describe('sidecars', () => {
  const bare = readFileSync(join(FILES, 'bare.jpg'));
  const offset = readFileSync(join(FILES, 'offset.jpg'));

  it('takes time and place from a Takeout JSON with a moved duplicate counter', async () => {
    const dir = mkdtempSync(join(work, 'takeout-'));
    writeFileSync(join(dir, 'IMG_0001(1).jpg'), bare);
    writeFileSync(
      join(dir, 'IMG_0001.jpg(1).json'),
      JSON.stringify({
        photoTakenTime: { timestamp: '1660986000' },
        geoDataExif: { latitude: 0, longitude: 0 },
        geoData: { latitude: 35.7056, longitude: 139.7519 },
      }),
    );
    const result = await extract(join(dir, 'IMG_0001(1).jpg'));
    expect(result.media).toMatchObject({ taken_at: '2022-08-20T09:00:00Z', latitude: 35.7056, longitude: 139.7519 });
    expect(result.source).toEqual({ taken_at: 'takeout', coordinates: 'takeout' });
  });

  it('lets an edited copy reuse the original JSON, and the sidecar win over EXIF', async () => {
    const dir = mkdtempSync(join(work, 'edited-'));
    writeFileSync(join(dir, 'IMG_0002-edited.jpg'), offset);
    writeFileSync(
      join(dir, 'IMG_0002.jpg.supplemental-metad.json'),
      JSON.stringify({
        photoTakenTime: { timestamp: '1701, oops' },
        geoDataExif: { latitude: -33.8568, longitude: 151.2153 },
      }),
    );
    const result = await extract(join(dir, 'IMG_0002-edited.jpg'));
    expect(result.media).toMatchObject({
      taken_at: '2024-07-13T00:15:30.123Z',
      latitude: -33.8568,
      device_make: 'Apple',
    });
    // Takeout writes the seconds as digits: anything else is said, never read as a time.
    expect(result.source).toEqual({
      taken_at: 'exif_offset',
      coordinates: 'takeout',
      warnings: [
        {
          code: 'skipped_sidecar',
          message: expect.stringContaining('photoTakenTime.timestamp is "1701, oops"'),
        },
      ],
    });
  });

  it('prefers NAME.ext.xmp over NAME.xmp and over Takeout', async () => {
    const dir = mkdtempSync(join(work, 'xmp-'));
    writeFileSync(join(dir, 'DSC_0003.jpg'), offset);
    writeFileSync(join(dir, 'DSC_0003.xmp'), '<rdf:Description xmp:CreateDate="2020-01-01T00:00:00Z"/>');
    writeFileSync(
      join(dir, 'DSC_0003.jpg.xmp'),
      '<rdf:Description exif:DateTimeOriginal="2024-11-16T21:00:00-03:00" exif:GPSLatitude="23,31.65S" ' +
        'exif:GPSLongitude="46,40.698W" tiff:Model="Edited Model"/>',
    );
    writeFileSync(
      join(dir, 'DSC_0003.jpg.json'),
      JSON.stringify({ photoTakenTime: { timestamp: '1' }, geoData: { latitude: 1, longitude: 1 } }),
    );
    const result = await extract(join(dir, 'DSC_0003.jpg'));
    expect(result.media).toMatchObject({
      taken_at: '2024-11-17T00:00:00Z',
      latitude: -23.5275,
      longitude: -46.6783,
      device_model: 'Edited Model',
      device_make: 'Apple',
    });
    expect(result.source).toEqual({ taken_at: 'xmp', coordinates: 'xmp' });
  });

  it('leaves out an XMP sidecar past the limits with a warning, and reads the file', async () => {
    const dir = mkdtempSync(join(work, 'wide-'));
    writeFileSync(join(dir, 'IMG_0005.jpg'), offset);
    writeFileSync(join(dir, 'IMG_0005.jpg.xmp'), wideXmp(150_000));
    const result = await extract(join(dir, 'IMG_0005.jpg'));
    expect(result.media).toMatchObject({ taken_at: '2024-07-13T00:15:30.123Z', device_make: 'Apple' });
    expect(result.source?.warnings).toEqual([
      {
        code: 'skipped_sidecar',
        message:
          'sidecar IMG_0005.jpg.xmp left out: the XMP packet holds more than 10000 attributes (the limit); not read',
      },
    ]);
  });

  it('ignores a broken sidecar', async () => {
    const dir = mkdtempSync(join(work, 'broken-'));
    writeFileSync(join(dir, 'IMG_0004.jpg'), bare);
    writeFileSync(join(dir, 'IMG_0004.jpg.json'), '{ not json');
    const result = await extract(join(dir, 'IMG_0004.jpg'));
    expect(result.media.taken_at).toBeNull();
  });
});

describe('file errors', () => {
  const jpeg = readFileSync(join(FILES, 'offset.jpg'));
  const mp4 = readFileSync(join(FILES, 'moov-last-loci.mp4'));

  it.each<[string, string, Uint8Array]>([
    ['empty.jpg', 'empty_file', new Uint8Array(0)],
    ['text.jpg', 'unsupported_format', Buffer.from('this is not a picture at all')],
    ['cut.jpg', 'truncated_file', jpeg.subarray(0, 100)],
    ['cut.mp4', 'truncated_file', mp4.subarray(0, 1000)],
    [
      'no-moov.mp4',
      'corrupt_file',
      Buffer.concat([mp4.subarray(0, 32), Buffer.from([0, 0, 0, 8, 0x66, 0x72, 0x65, 0x65])]),
    ],
    [
      'bad-box.mp4',
      'corrupt_file',
      Buffer.concat([mp4.subarray(0, 32), Buffer.from([0, 0, 0, 4, 0x6d, 0x6f, 0x6f, 0x76])]),
    ],
    [
      'huge-box.mp4',
      'truncated_file',
      Buffer.concat([
        mp4.subarray(0, 32),
        Buffer.from([0, 0, 0, 1, 0x6d, 0x6f, 0x6f, 0x76, 0x7f, 0, 0, 0, 0, 0, 0, 0]),
      ]),
    ],
    [
      'bad-exif.jpg',
      'corrupt_file',
      Buffer.concat([
        Buffer.from([0xff, 0xd8, 0xff, 0xe1, 0, 16]),
        Buffer.from('Exif\0\0XXXXXXXX'),
        Buffer.from([0xff, 0xd9]),
      ]),
    ],
  ])('%s -> %s', async (name, code, data) => {
    const error = await failure(join(work, name), data);
    expect(error.code).toBe(code);
    expect(error.path).toBe(join(work, name));
  });

  it('reports a failing read as read_error', async () => {
    const bytes: ByteSource = {
      size: jpeg.length + 1_000_000,
      head: jpeg.subarray(0, 4),
      read: async () => {
        throw Object.assign(new Error('EIO: i/o error'), { code: 'EIO' });
      },
    };
    expect((await failure(join(work, 'eio.jpg'), jpeg, bytes)).code).toBe('read_error');
  });
});
