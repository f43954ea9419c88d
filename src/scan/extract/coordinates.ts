/** Pure conversions of the coordinate forms found in EXIF, XMP, QuickTime and Takeout. */

import { cleanText } from './text.js';

export interface Coordinates {
  latitude: number;
  longitude: number;
}

/** Coordinates are rounded to 6 decimals (about 0.1 m): finer digits are noise, not position. */
const DECIMALS = 1e6;

/** Rounds to 6 decimals, turning -0 into 0. */
export function roundCoordinate(value: number): number {
  return Math.round(value * DECIMALS) / DECIMALS + 0;
}

/**
 * Validates a pair: finite, inside [-90, 90] x [-180, 180], and not exactly 0,0 (what
 * cameras write when they have no fix). Returns the rounded pair or null.
 */
export function validCoordinates(latitude: number | null, longitude: number | null): Coordinates | null {
  if (latitude === null || longitude === null) return null;
  if (!Number.isFinite(latitude) || !Number.isFinite(longitude)) return null;
  if (Math.abs(latitude) > 90 || Math.abs(longitude) > 180) return null;
  if (latitude === 0 && longitude === 0) return null;
  return { latitude: roundCoordinate(latitude), longitude: roundCoordinate(longitude) };
}

/**
 * EXIF degrees/minutes/seconds (numbers, rationals already divided) to decimal degrees.
 * Accepts [d, m, s], [d, m], [d] or a plain number. All-negative parts (signed rationals)
 * give a negative value; mixed signs, NaN, or minutes/seconds past 60 give null. Exactly
 * 60 is accepted: cameras round 59.9999 up and write [46, 47, 60]. Text (GPS written with
 * the ASCII type by some phones and apps) is read as exiftool reads it: see `dmsText`.
 */
export function dmsToDecimal(value: unknown): number | null {
  if (value === null || value === undefined) return null;
  if (typeof value === 'string') return dmsText(value);
  const parts = Array.isArray(value) ? value.map((v) => (typeof v === 'number' ? v : Number(v))) : [Number(value)];
  if (parts.length === 0 || parts.length > 3 || !parts.every(Number.isFinite)) return null;
  if (parts.length === 1) return parts[0]!;
  const negative = parts.some((p) => p < 0);
  if (negative && !parts.every((p) => p <= 0)) return null;
  const [deg = 0, min = 0, sec = 0] = parts.map(Math.abs) as number[];
  if (min > 60 || sec > 60) return null;
  const decimal = deg + min / 60 + sec / 3600;
  return negative ? -decimal : decimal;
}

/**
 * GPS degrees written as text: up to three numbers ("51 30 25.92", "51,30,25.92",
 * "51 deg 30' 25.92\"", "51.5072"), whatever separates them, as exiftool reads them; a
 * leading minus or a trailing S or W makes the value negative (the Ref still applies to
 * a positive one). More than three numbers, or none, give null.
 */
function dmsText(text: string): number | null {
  const t = cleanText(text) ?? '';
  const numbers = t.match(/\d+(?:\.\d*)?|\.\d+/g);
  if (numbers === null || numbers.length > 3) return null;
  const value = dmsToDecimal(numbers.map(Number));
  if (value === null) return null;
  return /^-/.test(t) || /[SW]\s*$/i.test(t) ? -value : value;
}

/**
 * Applies an EXIF hemisphere reference (N/S/E/W, any case): S and W make the value
 * negative, but a value already negative is not flipped again. Unknown refs keep the sign.
 */
export function applyRef(value: number, ref: unknown): number {
  const r = typeof value === 'number' && typeof ref === 'string' ? ref.trim().toUpperCase() : '';
  if ((r.startsWith('S') || r.startsWith('W')) && value > 0) return -value;
  return value;
}

/** EXIF GPSLatitude/Ref + GPSLongitude/Ref to validated decimal coordinates. */
export function exifCoordinates(tags: {
  GPSLatitude?: unknown;
  GPSLatitudeRef?: unknown;
  GPSLongitude?: unknown;
  GPSLongitudeRef?: unknown;
}): Coordinates | null {
  const lat = dmsToDecimal(tags.GPSLatitude ?? NaN);
  const lon = dmsToDecimal(tags.GPSLongitude ?? NaN);
  if (lat === null || lon === null) return null;
  return validCoordinates(applyRef(lat, tags.GPSLatitudeRef), applyRef(lon, tags.GPSLongitudeRef));
}

/** One ISO 6709 component: sign and digits, where the integer part's width says D, DM or DMS. */
function iso6709Part(sign: string, digits: string, degreeWidth: number): number | null {
  const [intPart = '', fracPart] = digits.split('.');
  const frac = fracPart === undefined ? 0 : Number(`0.${fracPart}`);
  let value: number;
  if (intPart.length <= degreeWidth) value = Number(intPart) + frac;
  else if (intPart.length === degreeWidth + 2) {
    const min = Number(intPart.slice(-2)) + frac;
    if (min >= 60) return null;
    value = Number(intPart.slice(0, -2)) + min / 60;
  } else if (intPart.length === degreeWidth + 4) {
    const min = Number(intPart.slice(-4, -2));
    const sec = Number(intPart.slice(-2)) + frac;
    if (min >= 60 || sec >= 60) return null;
    value = Number(intPart.slice(0, -4)) + min / 60 + sec / 3600;
  } else return null;
  return sign === '-' ? -value : value;
}

const ISO6709_RE = /^([+-])(\d+(?:\.\d*)?)([+-])(\d+(?:\.\d*)?)(?:[+-]\d+(?:\.\d*)?)?(?:CRS[\w:]+)?\/?$/;

/**
 * ISO 6709 point ("+40.7505-073.9934+010.000/", with or without altitude, degrees,
 * degrees-minutes or degrees-minutes-seconds) to validated coordinates.
 */
export function parseIso6709(text: unknown): Coordinates | null {
  if (typeof text !== 'string') return null;
  const m = ISO6709_RE.exec(cleanText(text) ?? '');
  if (!m) return null;
  const lat = iso6709Part(m[1]!, m[2]!, 2);
  const lon = iso6709Part(m[3]!, m[4]!, 3);
  return validCoordinates(lat, lon);
}

/**
 * One XMP GPS coordinate: "40,45.03N" (degrees, decimal minutes), "40,45,1.8N"
 * (degrees, minutes, seconds) or a signed decimal ("-73.9934"). Null when malformed.
 */
export function parseXmpCoordinate(text: unknown): number | null {
  if (typeof text !== 'string') return null;
  const t = text.trim();
  if (/^[+-]?\d+(?:\.\d+)?$/.test(t)) return Number(t);
  const m = /^(\d+),(\d+(?:\.\d+)?)(?:,(\d+(?:\.\d+)?))?\s*([NSEW])$/i.exec(t);
  if (!m) return null;
  const value = dmsToDecimal([Number(m[1]), Number(m[2]), Number(m[3] ?? 0)]);
  return value === null ? null : applyRef(value, m[4]);
}
