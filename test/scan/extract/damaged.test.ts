import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ScanError } from '../../../src/errors.js';
import { memorySource } from '../../../src/scan/extract/bytes.js';
import { parseDateText } from '../../../src/scan/extract/dates.js';
import { createSidecarFinder, extractFile } from '../../../src/scan/extract/index.js';
import { readJpegMetadata } from '../../../src/scan/extract/jpeg.js';
import { resolveTakenAt, type TimeEvidence } from '../../../src/scan/extract/taken-at.js';
import { cleanText } from '../../../src/scan/extract/text.js';
import { readTiff } from '../../../src/scan/extract/tiff.js';
import { parseXmp, parseXmpPacket } from '../../../src/scan/extract/xmp.js';
import type { ExtractionWarning } from '../../../src/scan/extract/warnings.js';
import type { ByteSource } from '../../../src/scan/types.js';

const DAMAGED = fileURLToPath(new URL('../../../fixtures/library/damaged/', import.meta.url));

function source(data: Uint8Array, headSize: number): ByteSource {
  return {
    size: data.length,
    head: data.subarray(0, headSize),
    read: async (offset, length) => data.subarray(offset, offset + length),
  };
}

async function extract(name: string, headSize = 256 * 1024) {
  const path = join(DAMAGED, name);
  return extractFile({ absPath: path, bytes: source(readFileSync(path), headSize), sidecars: createSidecarFinder() });
}

type Entry = [tag: number, type: number, count: number, value: Uint8Array];

/** A little-endian classic TIFF: IFD0 at 8, then each further IFD, values after each table. */
function tiff(ifds: Entry[][]): Uint8Array {
  const out: number[] = [0x49, 0x49, 42, 0, 8, 0, 0, 0];
  const u16 = (v: number): number[] => [v & 0xff, (v >> 8) & 0xff];
  const u32 = (v: number): number[] => [v & 0xff, (v >> 8) & 0xff, (v >> 16) & 0xff, (v >>> 24) & 0xff];
  const starts: number[] = [];
  let at = 8;
  for (const entries of ifds) {
    starts.push(at);
    at += 2 + 12 * entries.length + 4 + entries.reduce((n, e) => n + (e[3].length > 4 ? e[3].length : 0), 0);
  }
  ifds.forEach((entries, i) => {
    let values = starts[i]! + 2 + 12 * entries.length + 4;
    const tail: number[] = [];
    out.push(...u16(entries.length));
    for (const [tag, type, count, value] of entries) {
      out.push(...u16(tag), ...u16(type), ...u32(count));
      if (value.length > 4) {
        out.push(...u32(values));
        tail.push(...value);
        values += value.length;
      } else out.push(...value, ...new Array<number>(4 - value.length).fill(0));
    }
    out.push(...u32(0), ...tail);
  });
  return Uint8Array.from(out);
}
const text = (s: string): Uint8Array => new TextEncoder().encode(`${s}\u0000`);
const long = (v: number): Uint8Array => Uint8Array.from([v & 0xff, (v >> 8) & 0xff, (v >> 16) & 0xff, v >>> 24]);

describe('damaged real-structure files (fixtures/library/damaged)', () => {
  it.each<[string, Record<string, unknown>, Record<string, unknown>, string[]]>([
    [
      'DSC00001-type0-entry.jpg',
      {
        taken_at: '2021-05-01T10:00:00Z',
        latitude: 47.5622,
        longitude: 13.6493,
        device_make: 'SONY',
        device_model: null,
      },
      { taken_at: 'exif_offset', coordinates: 'exif_gps' },
      ['skipped_entry'],
    ],
    [
      'MVC-002-nul-model.jpg',
      { taken_at: '2021-05-02T12:30:00Z', device_make: 'SONY', device_model: 'MAVICA' },
      { taken_at: 'exif_offset', coordinates: 'exif_gps' },
      [],
    ],
    [
      'IMG_0003-app1-short.jpg',
      { taken_at: '2021-05-03T22:10:00Z', device_model: 'Canon EOS 5D', device_lens_model: 'EF50mm f/1.8 II' },
      { taken_at: 'exif_offset', coordinates: 'exif_gps' },
      ['skipped_segment'],
    ],
    [
      'IMG_0004-xmp-entities.jpg',
      {
        taken_at: '2021-05-04T18:00:00Z',
        latitude: null,
        device_make: 'Smith & Sons',
        device_model: 'Model &#9999999999;',
      },
      { taken_at: 'xmp', coordinates: null },
      [],
    ],
    [
      'scan-0005-bigtiff.tif',
      {
        taken_at: '2021-05-05T12:45:00Z',
        latitude: 47.5622,
        longitude: 13.6493,
        device_make: 'Hasselblad',
        device_model: 'Flextight X5',
      },
      { taken_at: 'exif_offset', coordinates: 'exif_gps' },
      [],
    ],
  ])('%s', async (name, media, rules, warnings) => {
    const result = await extract(name);
    expect(result.media).toMatchObject(media);
    expect({ taken_at: result.source.taken_at, coordinates: result.source.coordinates }).toEqual(rules);
    expect((result.source.warnings ?? []).map((w) => w.code)).toEqual(warnings);
    for (const w of result.source.warnings ?? []) expect(w.message).not.toBe('');
    // Reads beyond a 64-byte head give the same answer.
    expect(await extract(name, 64)).toEqual(result);
  });
});

describe('readTiff: per IFD, per entry', () => {
  it('skips an entry of unknown type and one whose value lies outside, and reads the rest', async () => {
    const data = tiff([
      [
        [0x010f, 0, 5, text('Sony')],
        [0x0110, 2, 6, text('Model')],
        [0x9003, 2, 1000, long(9_999_999)],
        [0xa434, 2, 4, text('Lns')],
      ],
    ]);
    const read = await readTiff(memorySource(data));
    expect(read.tags).toEqual({ Model: 'Model', LensModel: 'Lns' });
    expect(read.warnings.map((w) => w.code)).toEqual(['skipped_entry', 'skipped_entry']);
    expect(read.warnings[0]!.message).toContain('0x010f');
  });

  it('keeps IFD0 when the GPS IFD pointer leads nowhere', async () => {
    const data = tiff([
      [
        [0x010f, 2, 5, text('Sony')],
        [0x8825, 4, 1, long(50_000)],
      ],
    ]);
    const read = await readTiff(memorySource(data));
    expect(read.tags).toEqual({ Make: 'Sony' });
    expect(read.warnings.map((w) => w.code)).toEqual(['skipped_ifd']);
  });

  it('keeps the entries of a table cut by the end of the data', async () => {
    const whole = tiff([
      [
        [0x010f, 2, 4, text('Sny')],
        [0x0110, 2, 4, text('Mdl')],
      ],
    ]);
    // Claim three entries where there are two (and the next-IFD offset): the third lies past the end.
    const data = Uint8Array.from(whole.subarray(0, 8 + 2 + 24));
    data[8] = 3;
    const read = await readTiff(memorySource(data));
    expect(read.tags).toEqual({ Make: 'Sny', Model: 'Mdl' });
    expect(read.warnings.map((w) => w.code)).toEqual(['skipped_entry']);
  });

  it('is corrupt_file only when there is no TIFF header or no IFD0', async () => {
    await expect(readTiff(memorySource(new TextEncoder().encode('XXXXXXXXXXXX')))).rejects.toMatchObject({
      code: 'corrupt_file',
    });
    const noIfd0 = Uint8Array.from([0x49, 0x49, 42, 0, 0xff, 0xff, 0, 0, 0, 0]);
    await expect(readTiff(memorySource(noIfd0))).rejects.toMatchObject({ code: 'corrupt_file' });
  });

  it('decodes text at its first NUL, UTF-8 when valid and Latin-1 otherwise', async () => {
    const latin = Uint8Array.from([0x43, 0x61, 0x66, 0xe9, 0]);
    const data = tiff([
      [
        [0x010f, 2, 9, Uint8Array.from([...new TextEncoder().encode('Caf\u00e9'), 0, 0x41, 0x42, 0])],
        [0x0110, 2, 5, latin],
      ],
    ]);
    expect((await readTiff(memorySource(data))).tags).toEqual({ Make: 'Caf\u00e9', Model: 'Caf\u00e9' });
  });
});

describe('cleanText', () => {
  it.each<[unknown, string | null]>([
    ['MAVICA\u0000 3ghx7y\u0000', 'MAVICA'],
    ['Trust.Gemini11H\u0001H\u0001', 'Trust.Gemini11HH'],
    ['  Apple \u0000', 'Apple'],
    ['\u0000Canon', null],
    ['\u0007\u001b ', null],
    ['Caf\u00e9\u0085', 'Caf\u00e9'],
    [42, null],
  ])('%j -> %j', (input, expected) => {
    expect(cleanText(input)).toBe(expected);
  });

  it('applies to dates: cut at the NUL, then parsed', () => {
    expect(parseDateText('2024:07:12 20:15:30\u0000garbage')?.local.wallMs).toBe(Date.UTC(2024, 6, 12, 20, 15, 30));
  });
});

describe('JPEG segment lengths', () => {
  const seg = (marker: number, body: number[]): number[] => [
    0xff,
    marker,
    (body.length + 2) >> 8,
    (body.length + 2) & 0xff,
    ...body,
  ];
  const exif = [...new TextEncoder().encode('Exif\u0000\u0000'), ...tiff([[[0x010f, 2, 5, text('Sony')]]])];

  it('goes on at the real marker when a length is a few bytes off, keeping the EXIF', async () => {
    const app2 = seg(0xe2, new Array<number>(40).fill(7));
    app2[3] = app2[3]! + 3; // three bytes too long
    const bytes = Uint8Array.from([
      0xff,
      0xd8,
      ...seg(0xe1, exif),
      ...app2,
      ...seg(0xdb, [1, 2, 3]),
      0xff,
      0xda,
      0,
      2,
      0xff,
      0xd9,
    ]);
    const found = await readJpegMetadata(memorySource(bytes));
    expect(found.tiff).not.toBeNull();
    expect(found.warnings.map((w: ExtractionWarning) => w.code)).toEqual(['skipped_segment']);
  });

  it('keeps the metadata read before a tail of garbage or a cut', async () => {
    const bytes = Uint8Array.from([0xff, 0xd8, ...seg(0xe1, exif), 0x12, 0x34, 0x56]);
    expect((await readJpegMetadata(memorySource(bytes))).warnings.map((w) => w.code)).toEqual(['skipped_segment']);
    const cut = Uint8Array.from([0xff, 0xd8, ...seg(0xe1, exif), 0xff, 0xe2, 0x10]);
    expect((await readJpegMetadata(memorySource(cut))).tiff).not.toBeNull();
  });

  it('is still an error when nothing was read before the damage', async () => {
    const bytes = Uint8Array.from([0xff, 0xd8, 0x12, 0x34, 0x56, 0x78]);
    await expect(readJpegMetadata(memorySource(bytes))).rejects.toMatchObject({ code: 'corrupt_file' });
  });
});

describe('PNG and WebP cut after their metadata', () => {
  const file = (name: string) => readFileSync(fileURLToPath(new URL(`./files/${name}`, import.meta.url)));
  const at = (data: Uint8Array, id: string) => Buffer.from(data).indexOf(id);
  const run = (name: string, data: Uint8Array) =>
    extractFile({ absPath: `/x/${name}`, bytes: source(data, data.length), sidecars: createSidecarFinder() });

  it('keeps a PNG eXIf chunk when a later chunk is cut, and says so', async () => {
    const png = file('exif.png');
    const afterExif = at(png, 'eXIf') + 4 + new DataView(png.buffer, png.byteOffset).getUint32(at(png, 'eXIf') - 4) + 4;
    const result = await run('cut.png', png.subarray(0, afterExif + 12));
    expect(result.media).toMatchObject({ taken_at: '2023-12-09T08:40:00Z', device_model: 'Pixel 8' });
    expect(result.source.warnings?.map((w) => w.code)).toEqual(['skipped_segment']);
    await expect(run('cut.png', png.subarray(0, at(png, 'eXIf') + 8))).rejects.toMatchObject({
      code: 'truncated_file',
    });
  });

  it('keeps a WebP EXIF chunk when the file is cut after it', async () => {
    const webp = file('exif.webp');
    const exif = at(webp, 'EXIF');
    const end = exif + 8 + new DataView(webp.buffer, webp.byteOffset).getUint32(exif + 4, true);
    // Cut just after the EXIF chunk (or inside the next one): the RIFF size now lies past the end.
    const result = await run(
      'cut.webp',
      Uint8Array.from([...webp.subarray(0, end), 0x58, 0x4d, 0x50, 0x20, 0xff, 0, 0, 0, 1]),
    );
    expect(result.media).toMatchObject({ latitude: 35.7056, longitude: 139.7519 });
  });
});

describe('XMP with an XML parser', () => {
  it('decodes hex and decimal entities and keeps a reference past U+10FFFF as written', () => {
    const xmp = parseXmp('<rdf:Description tiff:Make="A&#x26;B &#67;" tiff:Model="M &#9999999999;"/>');
    expect([xmp.make, xmp.model]).toEqual(['A&B C', 'M &#9999999999;']);
  });

  it('resolves namespaces by URI, whatever the prefix', () => {
    const xmp =
      parseXmp(`<x:xmpmeta xmlns:x="adobe:ns:meta/"><r:RDF xmlns:r="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
      <r:Description xmlns:e="http://ns.adobe.com/exif/1.0/" xmlns:t="http://ns.adobe.com/tiff/1.0/" xmlns:tiff="urn:not-tiff">
      <e:DateTimeOriginal>2024-07-12T20:15:30+02:00</e:DateTimeOriginal><t:Make>Nikon</t:Make><tiff:Model>wrong</tiff:Model>
      <e:GPSLatitude>48,50.316N</e:GPSLatitude><e:GPSLongitude>2,22.716E</e:GPSLongitude></r:Description></r:RDF></x:xmpmeta>`);
    expect(xmp.date?.offsetMinutes).toBe(120);
    expect(xmp.make).toBe('Nikon');
    expect(xmp.model).toBeNull();
    expect(xmp.coordinates).toEqual({ latitude: 48.8386, longitude: 2.3786 });
  });

  it('reads the first rdf:li of a language alternative', () => {
    const xmp = parseXmp(
      `<rdf:Description><exifEX:LensModel><rdf:Alt><rdf:li ` +
        `xml:lang="x-default">RF50</rdf:li><rdf:li>other</rdf:li></rdf:Alt></exifEX:LensModel></rdf:Description>`,
    );
    expect(xmp.lensModel).toBe('RF50');
  });

  it('turns an embedded packet no parser can read into a warning, and refuses external entities', () => {
    const warnings: ExtractionWarning[] = [];
    expect(parseXmpPacket('<x:xmpmeta><rdf:Description tiff:Make="A></x:xmpmeta>', warnings)).toBeNull();
    expect(parseXmpPacket('<!DOCTYPE x [<!ENTITY a SYSTEM "file:///etc/passwd">]><a>&a;</a>', warnings)).toBeNull();
    expect(warnings.map((w) => w.code)).toEqual(['skipped_xmp', 'skipped_xmp']);
  });
});

describe('the embedded XMP date under rule a', () => {
  const none: TimeEvidence = { xmp: null, takeoutMs: null, exif: null, gpsMs: null, video: null, mvhdMs: null };
  const noZones = async () => {
    throw new Error('zone lookup must not be needed');
  };

  it.each<[string, Partial<TimeEvidence>, string | null, string | null]>([
    [
      'EXIF local only, XMP with offset',
      { exif: parseDateText('2021:05:04 20:00:00'), embeddedXmp: parseDateText('2021-05-04T20:00:00+02:00') },
      '2021-05-04T18:00:00Z',
      'xmp',
    ],
    [
      'EXIF offset wins over the embedded XMP',
      { exif: parseDateText('2021:05:04 20:00:00+01:00'), embeddedXmp: parseDateText('2021-05-04T20:00:00+02:00') },
      '2021-05-04T19:00:00Z',
      'exif_offset',
    ],
    [
      'no EXIF date: the embedded XMP',
      { embeddedXmp: parseDateText('2021-05-04T20:00:00-03:00') },
      '2021-05-04T23:00:00Z',
      'xmp',
    ],
    [
      'Takeout wins over the file\u2019s own XMP',
      { takeoutMs: Date.UTC(2021, 4, 4, 12), embeddedXmp: parseDateText('2021-05-04T20:00:00+02:00') },
      '2021-05-04T12:00:00Z',
      'takeout',
    ],
    ['an embedded XMP local time alone stays null', { embeddedXmp: parseDateText('2021-05-04T20:00:00') }, null, null],
  ])('%s', async (_name, evidence, takenAt, rule) => {
    expect(await resolveTakenAt({ ...none, ...evidence }, null, noZones)).toEqual({ taken_at: takenAt, source: rule });
  });
});

describe('extractFile errors', () => {
  const zone = fileURLToPath(new URL('./files/zone.jpg', import.meta.url));
  const withZoneFinder = async (failure: Error) => {
    const data = readFileSync(zone);
    return extractFile({
      absPath: zone,
      bytes: source(data, data.length),
      sidecars: createSidecarFinder(),
      zoneFinder: async () => {
        throw failure;
      },
    }).catch((e: unknown) => e);
  };

  it('lets nothing but a ScanError out: a defect is internal_error, a RangeError corrupt_file', async () => {
    const defect = await withZoneFinder(new TypeError('undefined is not a function'));
    expect(defect).toBeInstanceOf(ScanError);
    expect(defect).toMatchObject({ code: 'internal_error', message: 'undefined is not a function' });
    expect(await withZoneFinder(new RangeError('Offset is outside the bounds of the DataView'))).toMatchObject({
      code: 'corrupt_file',
    });
  });
});
