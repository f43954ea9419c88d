import { describe, expect, it } from 'vitest';
import {
  applyRef,
  dmsToDecimal,
  exifCoordinates,
  parseIso6709,
  parseXmpCoordinate,
  validCoordinates,
} from '../../../src/scan/extract/coordinates.js';
import { formatInstant, fractionToMillis, parseDateText, parseOffset } from '../../../src/scan/extract/dates.js';
import { gpsUtcMs, offsetFromGpsTime } from '../../../src/scan/extract/gps-time.js';
import { zonedToUtc } from '../../../src/scan/extract/timezone.js';

const wall = (iso: string) => ({ wallMs: Date.parse(`${iso}Z`), hasFraction: false });
const iso = (ms: number) => new Date(ms).toISOString();

describe('parseDateText', () => {
  it.each([
    ['2024:07:12 20:15:30', '2024-07-12T20:15:30.000Z', null],
    ['2024-07-12T20:15:30-04:00', '2024-07-12T20:15:30.000Z', -240],
    ['2024-07-12T20:15:30.123+0530', '2024-07-12T20:15:30.123Z', 330],
    ['2024-07-12T20:15:30Z', '2024-07-12T20:15:30.000Z', 0],
    ['2024-07-12T20:15', '2024-07-12T20:15:00.000Z', null],
    ['2024:07:12 20:15:30\u0000', '2024-07-12T20:15:30.000Z', null],
  ])('%j -> wall %s, offset %s', (text, wallIso, offset) => {
    const parsed = parseDateText(text);
    expect(parsed).not.toBeNull();
    expect(iso(parsed!.local.wallMs)).toBe(wallIso);
    expect(parsed!.offsetMinutes).toBe(offset);
  });

  it.each([
    ['0000:00:00 00:00:00'],
    ['    :  :     :  :  '],
    [''],
    ['   '],
    ['2024:02:30 10:00:00'],
    ['2024:13:01 10:00:00'],
    ['2024:07:12 24:00:00'],
    ['2024-07-12'],
    ['garbage'],
    ['2024:07:12 20:15:30+15:00'],
  ])('%j is no date', (text) => {
    expect(parseDateText(text)).toBeNull();
  });

  it('ignores non-strings', () => {
    expect(parseDateText(undefined)).toBeNull();
    expect(parseDateText(20240712)).toBeNull();
  });
});

describe('parseOffset', () => {
  it.each([
    ['+09:00', 540],
    ['-04:00', -240],
    ['+0530', 330],
    ['-03', -180],
    ['Z', 0],
    [' +01:00 ', 60],
    ['+14:00', 840],
    ['+14:15', null],
    ['-12:60', null],
    ['   :  ', null],
    ['', null],
    ['0900', null],
  ])('%j -> %s', (text, expected) => {
    expect(parseOffset(text)).toBe(expected);
  });
});

describe('fractionToMillis', () => {
  it.each([
    ['123', 123],
    ['5', 500],
    ['05', 50],
    ['0504', 50],
    ['000', 0],
    ['  ', 0],
    ['ab', 0],
    [null, 0],
  ])('%j -> %i ms', (text, expected) => {
    expect(fractionToMillis(text)).toBe(expected);
  });
});

describe('formatInstant', () => {
  it.each([
    [Date.UTC(2024, 6, 13, 0, 0, 0), false, '2024-07-13T00:00:00Z'],
    [Date.UTC(2024, 6, 13, 0, 0, 0, 123), true, '2024-07-13T00:00:00.123Z'],
    [Date.UTC(2024, 6, 13, 0, 0, 0, 0), true, '2024-07-13T00:00:00Z'],
    [Date.UTC(1700, 0, 1), false, null],
  ])('%i (fraction %s) -> %s', (utcMs, hasFraction, expected) => {
    expect(formatInstant({ utcMs, hasFraction })).toBe(expected);
  });
});

describe('EXIF GPS', () => {
  it.each([
    [[40, 45, 1.8], 40.7505],
    [[40, 45.03], 40.7505],
    [[40.7505], 40.7505],
    [40.7505, 40.7505],
    [[40, 60, 0], 41],
    [[46, 47, 60], 46.8],
    [[-73, -59, -36.24], -73.9934],
    [[40, 61, 0], null],
    [[40, 1, 60.5], null],
    [[NaN, 1, 2], null],
    [[-40, 45, 0], null],
    [[], null],
    [null, null],
  ])('dmsToDecimal(%j) -> %s', (value, expected) => {
    const result = dmsToDecimal(value);
    if (expected === null) expect(result).toBeNull();
    else expect(result).toBeCloseTo(expected, 9);
  });

  it.each([
    [10, 'S', -10],
    [10, 's', -10],
    [10, 'W', -10],
    [10, 'w', -10],
    [10, 'N', 10],
    [10, 'E', 10],
    [-10, 'S', -10],
    [-10, 'W', -10],
    [-10, 'N', -10],
    [10, undefined, 10],
    [10, '', 10],
  ])('applyRef(%d, %j) -> %d', (value, ref, expected) => {
    expect(applyRef(value, ref)).toBe(expected);
  });

  it.each([
    [
      { GPSLatitude: [40, 45, 1.8], GPSLatitudeRef: 'N', GPSLongitude: [73, 59, 36.24], GPSLongitudeRef: 'W' },
      { latitude: 40.7505, longitude: -73.9934 },
    ],
    [
      { GPSLatitude: [33, 51, 24.48], GPSLatitudeRef: 's', GPSLongitude: [151, 12, 55.08], GPSLongitudeRef: 'e' },
      { latitude: -33.8568, longitude: 151.2153 },
    ],
    [
      { GPSLatitude: [40, 45, 1.44], GPSLatitudeRef: 'N', GPSLongitude: [-73, -59, -36.24], GPSLongitudeRef: 'W' },
      { latitude: 40.7504, longitude: -73.9934 },
    ],
    [{ GPSLatitude: [0, 0, 0], GPSLatitudeRef: 'N', GPSLongitude: [0, 0, 0], GPSLongitudeRef: 'E' }, null],
    [{ GPSLatitude: [91, 0, 0], GPSLatitudeRef: 'N', GPSLongitude: [10, 0, 0], GPSLongitudeRef: 'E' }, null],
    [{ GPSLatitude: [10, 0, 0], GPSLatitudeRef: 'N' }, null],
    [{}, null],
  ])('exifCoordinates(%j)', (tags, expected) => {
    expect(exifCoordinates(tags)).toEqual(expected);
  });

  it('rounds to 6 decimals and rejects out-of-range values', () => {
    expect(validCoordinates(12.3456789, -0.0000001)).toEqual({ latitude: 12.345679, longitude: 0 });
    expect(validCoordinates(10, 181)).toBeNull();
    expect(validCoordinates(Number.NaN, 10)).toBeNull();
  });
});

describe('ISO 6709', () => {
  it.each([
    ['+40.7505-073.9934+010.000/', { latitude: 40.7505, longitude: -73.9934 }],
    ['+40.7505-073.9934/', { latitude: 40.7505, longitude: -73.9934 }],
    ['-33.8568+151.2153', { latitude: -33.8568, longitude: 151.2153 }],
    ['+4045.03-07359.604/', { latitude: 40.7505, longitude: -73.9934 }],
    ['+404501.8-0735936.24/', { latitude: 40.7505, longitude: -73.9934 }],
    ['+35.7056+139.7519+040.5CRSWGS_84/', { latitude: 35.7056, longitude: 139.7519 }],
    ['+00.0000+000.0000/', null],
    ['+91.0000+000.0000/', null],
    ['+4075.00-07359.60/', null],
    ['40.7505,-73.9934', null],
    ['', null],
  ])('%j', (text, expected) => {
    const result = parseIso6709(text);
    if (expected === null) expect(result).toBeNull();
    else {
      expect(result!.latitude).toBeCloseTo(expected.latitude, 6);
      expect(result!.longitude).toBeCloseTo(expected.longitude, 6);
    }
  });
});

describe('XMP coordinates', () => {
  it.each([
    ['40,45.03N', 40.7505],
    ['73,59.604W', -73.9934],
    ['40,45,1.8N', 40.7505],
    ['33,51.408s', -33.8568],
    ['40,61.0N', null],
    ['-73.9934', -73.9934],
    ['north', null],
  ])('%j -> %s', (text, expected) => {
    const result = parseXmpCoordinate(text);
    if (expected === null) expect(result).toBeNull();
    else expect(result).toBeCloseTo(expected, 9);
  });
});

describe('GPS time (rule b)', () => {
  it('reads GPSDateStamp + GPSTimeStamp as UTC', () => {
    expect(gpsUtcMs('2024:07:13', [0, 15, 29.5])).toBe(Date.UTC(2024, 6, 13, 0, 15, 29, 500));
    expect(gpsUtcMs('2024:07:13', '00:15:29')).toBe(Date.UTC(2024, 6, 13, 0, 15, 29));
    expect(gpsUtcMs(undefined, [0, 15, 29])).toBeNull();
    expect(gpsUtcMs('2024:07:13', undefined)).toBeNull();
    expect(gpsUtcMs('2024:07:13', [25, 0, 0])).toBeNull();
  });

  it.each([
    ['2024-07-12T20:15:30', Date.UTC(2024, 6, 13, 0, 15, 29), -240],
    ['2024-07-12T20:15:30', Date.UTC(2024, 6, 13, 0, 9, 0), -240], // fix 6 minutes late
    ['2022-08-20T18:30:00', Date.UTC(2022, 7, 20, 9, 30, 0), 540],
    ['2024-01-01T12:00:00', Date.UTC(2024, 0, 1, 6, 30, 0), 330],
    ['2024-01-01T12:00:00', Date.UTC(2024, 0, 1, 12, 0, 0), 0],
    ['2024-01-01T12:00:00', Date.UTC(2023, 11, 31, 21, 45, 0), null], // +14:15 is beyond +14 h
    ['2024-01-01T12:00:00', Date.UTC(2024, 0, 3, 12, 0, 0), null],
  ])('local %s, GPS %i -> %s', (local, gps, expected) => {
    const result = offsetFromGpsTime(wall(local), gps);
    expect(result).toBe(expected);
  });
});

describe('zonedToUtc (rule c)', () => {
  it.each([
    ['2024-07-12T20:15:30', 'America/New_York', '2024-07-13T00:15:30.000Z', 'unique'],
    ['2023-12-09T19:30:00', 'Australia/Sydney', '2023-12-09T08:30:00.000Z', 'unique'],
    ['2024-11-16T21:00:00', 'America/Sao_Paulo', '2024-11-17T00:00:00.000Z', 'unique'],
    // spring forward: 02:30 never showed; shifted forward as the clock would (03:30 EDT)
    ['2024-03-10T02:30:00', 'America/New_York', '2024-03-10T07:30:00.000Z', 'gap'],
    ['2024-03-31T01:30:00', 'Europe/London', '2024-03-31T01:30:00.000Z', 'gap'],
    // fall back: 01:30 showed twice; the first occurrence (still on daylight time) is taken
    ['2024-11-03T01:30:00', 'America/New_York', '2024-11-03T05:30:00.000Z', 'overlap'],
    ['2024-10-27T02:30:00', 'Europe/Paris', '2024-10-27T00:30:00.000Z', 'overlap'],
    ['2024-04-07T02:30:00', 'Australia/Sydney', '2024-04-06T15:30:00.000Z', 'overlap'],
    ['2023-10-01T02:30:00', 'Australia/Sydney', '2023-09-30T16:30:00.000Z', 'gap'],
  ])('%s in %s -> %s (%s)', (local, zone, expected, resolution) => {
    const result = zonedToUtc(wall(local), zone);
    expect(iso(result!.instant.utcMs)).toBe(expected);
    expect(result!.resolution).toBe(resolution);
  });

  it('refuses an unknown zone', () => {
    expect(zonedToUtc(wall('2024-01-01T00:00:00'), 'Mars/Olympus_Mons')).toBeNull();
  });
});
