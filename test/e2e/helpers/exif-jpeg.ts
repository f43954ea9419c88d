/**
 * A tiny JPEG writer with an EXIF block (capture time with its offset, GPS, camera), for
 * test and benchmark libraries. The image itself is a fixed 8x8 baseline JPEG; a comment
 * segment carries a unique tag so every file has its own bytes (and so its own id).
 */
import { exifTiff } from '../../../bench/scan-library.js';

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

const exifDate = (d: Date): string => d.toISOString().slice(0, 19).replace('T', ' ').replace(/-/g, ':');

/** Builds the JPEG bytes for a spec: the EXIF block is the bench library's writer. */
export function makeJpeg(spec: JpegSpec): Buffer {
  const tiff = exifTiff({
    make: spec.make ?? 'Camroll',
    model: spec.model ?? 'Test Cam',
    ...(spec.takenAt ? { dateTimeOriginal: exifDate(spec.takenAt), offsetTimeOriginal: '+00:00' } : {}),
    ...(spec.latitude !== null && spec.longitude !== null
      ? { latitude: spec.latitude, longitude: spec.longitude }
      : {}),
  });
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
