import type { Coordinates } from './coordinates.js';
import { parseXmpCoordinate, validCoordinates } from './coordinates.js';
import type { ParsedDate } from './dates.js';
import { parseDateText } from './dates.js';
import { cleanText } from './bytes.js';

/** What an XMP packet says, already validated. */
export interface XmpData {
  date: ParsedDate | null;
  coordinates: Coordinates | null;
  make: string | null;
  model: string | null;
  lensModel: string | null;
}

const DATE_PROPERTIES = ['exif:DateTimeOriginal', 'xmp:CreateDate', 'photoshop:DateCreated'];
const MAX_XMP_CHARS = 2 * 1024 * 1024;

function decodeEntities(text: string): string {
  return text
    .replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&apos;/g, "'")
    .replace(/&#(\d+);/g, (_, n: string) => String.fromCodePoint(Number(n)))
    .replace(/&amp;/g, '&');
}

/**
 * One simple property, written either as an attribute (`exif:GPSLatitude="..."`) or as an
 * element (`<exif:GPSLatitude>...</exif:GPSLatitude>`), or for a language alternative the
 * first `rdf:li` inside it. Namespace prefixes are matched as conventionally written.
 */
export function xmpProperty(xml: string, name: string): string | null {
  const escaped = name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const attr = new RegExp(`\\s${escaped}\\s*=\\s*(?:"([^"]*)"|'([^']*)')`).exec(xml);
  if (attr) return decodeEntities(attr[1] ?? attr[2] ?? '');
  const element = new RegExp(`<${escaped}(?:\\s[^>]*)?>([\\s\\S]*?)</${escaped}>`).exec(xml);
  if (!element) return null;
  const inner = element[1]!;
  const li = /<rdf:li(?:\s[^>]*)?>([\s\S]*?)<\/rdf:li>/.exec(inner);
  return decodeEntities((li ? li[1]! : inner).trim());
}

/** Reads dates, GPS and device names from an XMP packet (a sidecar file or an embedded one). */
export function parseXmp(xml: string): XmpData {
  const text = xml.length > MAX_XMP_CHARS ? xml.slice(0, MAX_XMP_CHARS) : xml;
  let date: ParsedDate | null = null;
  for (const property of DATE_PROPERTIES) {
    date = parseDateText(xmpProperty(text, property));
    if (date) break;
  }
  const lat = parseXmpCoordinate(xmpProperty(text, 'exif:GPSLatitude'));
  const lon = parseXmpCoordinate(xmpProperty(text, 'exif:GPSLongitude'));
  return {
    date,
    coordinates: validCoordinates(lat, lon),
    make: cleanText(xmpProperty(text, 'tiff:Make')),
    model: cleanText(xmpProperty(text, 'tiff:Model')),
    lensModel: cleanText(xmpProperty(text, 'exifEX:LensModel') ?? xmpProperty(text, 'aux:Lens')),
  };
}
