/**
 * A tiny JPEG writer with an EXIF block (capture time with its offset, GPS, camera), for
 * test and benchmark libraries. The image itself is a fixed 8x8 baseline JPEG; a comment
 * segment carries a unique tag so every file has its own bytes (and so its own id).
 */
const BASE_AFTER_SOI = Buffer.from(
  'ffdb004300100b0c0e0c0a100e0d0e1211101318281a181616183123251d283a333d3c3933383740485c4e404457453738506d51575f626768673e4d71797064785c656763ffdb0043011112121815182f1a1a2f634238426363636363636363636363636363636363636363636363636363636363636363636363636363636363636363636363636363ffc00011080008000803012200021101031101ffc4001500010100000000000000000000000000000005ffc40014100100000000000000000000000000000000ffc4001501010100000000000000000000000000000405ffc40014110100000000000000000000000000000000ffda000c03010002110311003f009a02802fffd9',
  'hex',
);

export interface JpegSpec {
  /** Capture instant (written as UTC wall time with offset +00:00); null writes no date. */
  takenAt: Date | null;
  /** Decimal degrees; null writes no GPS. */
  latitude: number | null;
  longitude: number | null;
  make?: string;
  model?: string;
  /** Makes the bytes unique. */
  tag: string;
}

type Entry = { tag: number; type: 2 | 3 | 4 | 5; count: number; value: Buffer | number };

/** Encodes one IFD at `offset` (little-endian); returns its bytes including out-of-line data. */
function ifd(entries: Entry[], offset: number): Buffer {
  entries.sort((a, b) => a.tag - b.tag);
  const headerSize = 2 + entries.length * 12 + 4;
  const head = Buffer.alloc(headerSize);
  const data: Buffer[] = [];
  let dataOffset = offset + headerSize;
  head.writeUInt16LE(entries.length, 0);
  entries.forEach((e, i) => {
    const at = 2 + i * 12;
    head.writeUInt16LE(e.tag, at);
    head.writeUInt16LE(e.type, at + 2);
    head.writeUInt32LE(e.count, at + 4);
    if (typeof e.value === 'number') {
      if (e.type === 3) head.writeUInt16LE(e.value, at + 8);
      else head.writeUInt32LE(e.value, at + 8);
    } else if (e.value.length <= 4) {
      e.value.copy(head, at + 8);
    } else {
      head.writeUInt32LE(dataOffset, at + 8);
      const padded = e.value.length % 2 ? Buffer.concat([e.value, Buffer.alloc(1)]) : e.value;
      data.push(padded);
      dataOffset += padded.length;
    }
  });
  head.writeUInt32LE(0, headerSize - 4);
  return Buffer.concat([head, ...data]);
}

const ascii = (s: string): Buffer => Buffer.from(`${s}\0`, 'latin1');

function rationals(values: Array<[number, number]>): Buffer {
  const b = Buffer.alloc(values.length * 8);
  values.forEach(([n, d], i) => {
    b.writeUInt32LE(n, i * 8);
    b.writeUInt32LE(d, i * 8 + 4);
  });
  return b;
}

function dms(deg: number): Buffer {
  const abs = Math.abs(deg);
  const d = Math.floor(abs);
  const m = Math.floor((abs - d) * 60);
  const s = Math.round(((abs - d) * 60 - m) * 60 * 10000);
  return rationals([
    [d, 1],
    [m, 1],
    [s, 10000],
  ]);
}

const exifDate = (d: Date): string => d.toISOString().slice(0, 19).replace('T', ' ').replace(/-/g, ':');

/** Builds the JPEG bytes for a spec. */
export function makeJpeg(spec: JpegSpec): Buffer {
  // Layout: TIFF header (8) | IFD0 | Exif IFD | GPS IFD, offsets relative to the TIFF header.
  const ifd0Entries = (exifPtr: number, gpsPtr: number): Entry[] => {
    const e: Entry[] = [
      { tag: 0x010f, type: 2, count: ascii(spec.make ?? 'Camroll').length, value: ascii(spec.make ?? 'Camroll') },
      { tag: 0x0110, type: 2, count: ascii(spec.model ?? 'Test Cam').length, value: ascii(spec.model ?? 'Test Cam') },
    ];
    if (spec.takenAt) e.push({ tag: 0x8769, type: 4, count: 1, value: exifPtr });
    if (spec.latitude !== null && spec.longitude !== null) e.push({ tag: 0x8825, type: 4, count: 1, value: gpsPtr });
    return e;
  };
  const ifd0Size = ifd(ifd0Entries(0, 0), 8).length;
  const exifOffset = 8 + ifd0Size;
  const exifEntries: Entry[] = spec.takenAt
    ? [
        { tag: 0x9003, type: 2, count: 20, value: ascii(exifDate(spec.takenAt)) },
        { tag: 0x9011, type: 2, count: 7, value: ascii('+00:00') },
      ]
    : [];
  const exifIfd = spec.takenAt ? ifd(exifEntries, exifOffset) : Buffer.alloc(0);
  const gpsOffset = exifOffset + exifIfd.length;
  const gpsIfd =
    spec.latitude !== null && spec.longitude !== null
      ? ifd(
          [
            { tag: 0x0001, type: 2, count: 2, value: ascii(spec.latitude >= 0 ? 'N' : 'S') },
            { tag: 0x0002, type: 5, count: 3, value: dms(spec.latitude) },
            { tag: 0x0003, type: 2, count: 2, value: ascii(spec.longitude >= 0 ? 'E' : 'W') },
            { tag: 0x0004, type: 5, count: 3, value: dms(spec.longitude) },
          ],
          gpsOffset,
        )
      : Buffer.alloc(0);
  const header = Buffer.from([0x49, 0x49, 0x2a, 0x00, 0x08, 0x00, 0x00, 0x00]);
  const tiff = Buffer.concat([header, ifd(ifd0Entries(exifOffset, gpsOffset), 8), exifIfd, gpsIfd]);
  const exif = Buffer.concat([Buffer.from('Exif\0\0', 'latin1'), tiff]);
  const app1 = Buffer.alloc(4);
  app1.writeUInt16BE(0xffe1, 0);
  app1.writeUInt16BE(exif.length + 2, 2);
  const comment = Buffer.from(spec.tag, 'utf8');
  const com = Buffer.alloc(4);
  com.writeUInt16BE(0xfffe, 0);
  com.writeUInt16BE(comment.length + 2, 2);
  return Buffer.concat([Buffer.from([0xff, 0xd8]), app1, exif, com, comment, BASE_AFTER_SOI]);
}
