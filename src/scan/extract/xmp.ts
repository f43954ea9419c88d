import { createRequire } from 'node:module';
import type { X2jOptions, XMLParser } from 'fast-xml-parser';
import type { Coordinates } from './coordinates.js';
import { parseXmpCoordinate, validCoordinates } from './coordinates.js';
import type { ParsedDate } from './dates.js';
import { parseDateText } from './dates.js';
import { cleanText } from './text.js';
import type { ExtractionWarning } from './warnings.js';
import { warning } from './warnings.js';

/** What an XMP packet says, already validated. */
export interface XmpData {
  date: ParsedDate | null;
  coordinates: Coordinates | null;
  /** GPS inside an IPTC LocationCreated: where the photo was taken, named afterwards (a fallback). */
  locationCreated: Coordinates | null;
  make: string | null;
  model: string | null;
  lensModel: string | null;
}

const NS = {
  rdf: 'http://www.w3.org/1999/02/22-rdf-syntax-ns#',
  exif: 'http://ns.adobe.com/exif/1.0/',
  xmp: 'http://ns.adobe.com/xap/1.0/',
  photoshop: 'http://ns.adobe.com/photoshop/1.0/',
  tiff: 'http://ns.adobe.com/tiff/1.0/',
  exifEX: 'http://cipa.jp/exif/1.0/',
  aux: 'http://ns.adobe.com/exif/1.0/aux/',
  Iptc4xmpExt: 'http://iptc.org/std/Iptc4xmpExt/2008-02-29/',
} as const;

/**
 * IPTC Extension location structures carry their own `exif:GPSLatitude`/`GPSLongitude`.
 * LocationShown is the place depicted (a skyline shot from across a bay): never where the
 * camera was. LocationCreated is, by IPTC's definition, where the photo was taken, but often
 * filled in afterwards (geocoded from a city name): its GPS stands in when no other source,
 * sidecar or file, gives a position.
 */
const LOCATION_SHOWN = NS.Iptc4xmpExt + 'LocationShown';
const LOCATION_CREATED = NS.Iptc4xmpExt + 'LocationCreated';
const CREATED_PREFIX = 'LocationCreated>';

/** The properties camroll reads, by namespace URI + local name (whatever prefix a writer chose). */
const WANTED = {
  dateTimeOriginal: NS.exif + 'DateTimeOriginal',
  createDate: NS.xmp + 'CreateDate',
  dateCreated: NS.photoshop + 'DateCreated',
  latitude: NS.exif + 'GPSLatitude',
  longitude: NS.exif + 'GPSLongitude',
  make: NS.tiff + 'Make',
  model: NS.tiff + 'Model',
  lensModel: NS.exifEX + 'LensModel',
  lens: NS.aux + 'Lens',
} as const;
const WANTED_NAMES = new Set<string>(Object.values(WANTED));
const CONTAINERS = new Set([NS.rdf + 'Alt', NS.rdf + 'Seq', NS.rdf + 'Bag']);
const MAX_XMP_CHARS = 2 * 1024 * 1024;
const MAX_DEPTH = 64;

/**
 * What a packet may hold before the parser builds anything of it. fast-xml-parser builds an
 * object per element and a property per attribute: 150,000 attributes in 1.7 MB took a scan
 * thread's whole heap (64 MB). Real packets hold hundreds (a Lightroom history a few
 * thousand); 10,000 of each parse in under 0.1 s and 25 MB. See docs/readme/archives.md, "Limits".
 */
export const XMP_LIMITS = { elements: 10_000, attributes: 10_000, depth: MAX_DEPTH } as const;

const LT = 0x3c; // <
const GT = 0x3e; // >
const SLASH = 0x2f;
const EQUALS = 0x3d;
const QUOTE = 0x22;
const APOSTROPHE = 0x27;
const QUESTION = 0x3f;
const BANG = 0x21;

/**
 * Counts the elements, attributes and nesting of a packet in one pass over its text, without
 * building anything, and throws when one is past XMP_LIMITS. Quote-aware inside tags (a `>` in
 * a value does not end the tag); a comment or CDATA holding `<` counts as elements, an upper
 * bound that only real packets far past the limits would meet.
 */
export function checkXmpLimits(text: string): void {
  let elements = 0;
  let attributes = 0;
  let depth = 0;
  for (let at = text.indexOf('<'); at >= 0; at = text.indexOf('<', at)) {
    const next = text.charCodeAt(at + 1);
    if (next === QUESTION || next === BANG) {
      at += 2;
      continue;
    }
    const closing = next === SLASH;
    if (!closing) elements += 1;
    let i = at + 1;
    let selfClosing = false;
    for (; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (c === QUOTE || c === APOSTROPHE) {
        const end = text.indexOf(String.fromCharCode(c), i + 1);
        if (end < 0) {
          i = text.length;
          break;
        }
        i = end;
      } else if (c === EQUALS) attributes += 1;
      else if (c === GT) {
        selfClosing = text.charCodeAt(i - 1) === SLASH;
        break;
      } else if (c === LT) {
        i -= 1; // a tag that never closed: the next `<` starts anew
        break;
      }
    }
    if (closing) depth -= 1;
    else if (!selfClosing) depth += 1;
    if (elements > XMP_LIMITS.elements)
      throw new Error(`the XMP packet holds more than ${XMP_LIMITS.elements} elements (the limit); not read`);
    if (attributes > XMP_LIMITS.attributes)
      throw new Error(`the XMP packet holds more than ${XMP_LIMITS.attributes} attributes (the limit); not read`);
    if (depth > XMP_LIMITS.depth)
      throw new Error(`the XMP packet nests deeper than ${XMP_LIMITS.depth} levels (the limit); not read`);
    at = i + 1;
  }
}

// A real XML parser for the structure. Entity decoding is done on the few values read
// (decodeEntities): the parser's own costs twice the whole parse, and XMP never declares
// entities of its own, so DOCTYPE entities stay unexpanded.
const PARSER_OPTIONS: X2jOptions = {
  ignoreAttributes: false,
  attributeNamePrefix: '@_',
  processEntities: false,
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: true,
  ignoreDeclaration: true,
  ignorePiTags: true,
};
// Loaded on the first XMP packet, not with the module (~50 ms): a thread that meets no XMP never pays it.
let parserInstance: XMLParser | null = null;
const parser = (): XMLParser =>
  (parserInstance ??= new (
    createRequire(import.meta.url)('fast-xml-parser') as typeof import('fast-xml-parser')
  ).XMLParser(PARSER_OPTIONS));

const NAMED: Readonly<Record<string, string>> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };

/**
 * XML's five named entities and decimal/hex character references. A reference that names no
 * character (past U+10FFFF, a surrogate, NUL) stays as written: it is data, never an error.
 */
export function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]{1,8}|#[0-9]{1,10}|[a-z]+);/gi, (whole, ref: string) => {
    if (ref[0] !== '#') return NAMED[ref] ?? whole;
    const code = ref[1] === 'x' || ref[1] === 'X' ? Number.parseInt(ref.slice(2), 16) : Number(ref.slice(1));
    if (code === 0 || code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff)) return whole;
    return String.fromCodePoint(code);
  });
}

type Scope = ReadonlyMap<string, string>;
// Prefixes as conventionally written, for packets that use them without declaring them.
const CONVENTIONAL: Scope = new Map(Object.entries(NS));
type XmlNode = string | number | boolean | null | undefined | XmlNode[] | { [key: string]: XmlNode };

/** `prefix:local` to namespace URI + local, with the prefixes declared at this point. */
function resolve(name: string, scope: Scope): string {
  const colon = name.indexOf(':');
  if (colon < 0) return (scope.get('') ?? '') + name;
  return (scope.get(name.slice(0, colon)) ?? `${name.slice(0, colon)}:`) + name.slice(colon + 1);
}

function withDeclarations(node: { [key: string]: XmlNode }, scope: Scope): Scope {
  let out: Map<string, string> | null = null;
  for (const [key, value] of Object.entries(node)) {
    if (typeof value !== 'string') continue;
    if (key === '@_xmlns' || key.startsWith('@_xmlns:')) {
      out ??= new Map(scope);
      out.set(key === '@_xmlns' ? '' : key.slice('@_xmlns:'.length), value);
    }
  }
  return out ?? scope;
}

/** A property's text: the element's own text, or the first `rdf:li` of an Alt/Seq/Bag inside it. */
function textOf(node: XmlNode, scope: Scope, depth: number): string | null {
  if (depth > MAX_DEPTH) return null;
  if (typeof node === 'string') return node;
  if (typeof node === 'number' || typeof node === 'boolean') return String(node);
  if (Array.isArray(node)) return node.length === 0 ? null : textOf(node[0], scope, depth + 1);
  if (node === null || node === undefined) return null;
  const inner = withDeclarations(node, scope);
  if (typeof node['#text'] === 'string' && node['#text'] !== '') return node['#text'];
  for (const [key, child] of Object.entries(node)) {
    if (key.startsWith('@_') || key === '#text') continue;
    const name = resolve(key, inner);
    if (CONTAINERS.has(name)) {
      const list = Array.isArray(child) ? child[0] : child;
      if (list && typeof list === 'object' && !Array.isArray(list)) {
        const listScope = withDeclarations(list, inner);
        for (const [liKey, li] of Object.entries(list)) {
          if (resolve(liKey, listScope) === NS.rdf + 'li') return textOf(li, listScope, depth + 1);
        }
      }
    }
  }
  return null;
}

/**
 * Every wanted property in the tree (attribute or element form), first occurrence kept.
 * Nothing inside an IPTC LocationShown is taken; what is inside a LocationCreated is kept
 * under `CREATED_PREFIX` + its name, apart from the packet's own properties.
 */
function collect(node: XmlNode, scope: Scope, found: Map<string, string>, depth: number, prefix = ''): void {
  if (depth > MAX_DEPTH || node === null || typeof node !== 'object') return;
  if (Array.isArray(node)) {
    for (const item of node) collect(item, scope, found, depth + 1, prefix);
    return;
  }
  const inner = withDeclarations(node, scope);
  for (const [key, child] of Object.entries(node)) {
    if (key === '#text') continue;
    const attribute = key.startsWith('@_');
    const name = resolve(attribute ? key.slice(2) : key, inner);
    if (WANTED_NAMES.has(name) && !found.has(prefix + name)) {
      const text = attribute ? (typeof child === 'string' ? child : null) : textOf(child, inner, depth + 1);
      if (text !== null) found.set(prefix + name, decodeEntities(text));
    }
    if (attribute || name === LOCATION_SHOWN) continue;
    collect(child, inner, found, depth + 1, name === LOCATION_CREATED ? CREATED_PREFIX : prefix);
  }
}

/** The wanted properties of a packet by URI + local name. Throws on text no XML parser can read. */
export function xmpProperties(xml: string): Map<string, string> {
  // The packet wrapper and its padding (kilobytes of spaces left for in-place edits) say nothing.
  const text = (xml.length > MAX_XMP_CHARS ? xml.slice(0, MAX_XMP_CHARS) : xml).replace(/<\?xpacket[^>]*>/g, '').trim();
  checkXmpLimits(text);
  const found = new Map<string, string>();
  collect(parser().parse(text) as XmlNode, CONVENTIONAL, found, 0);
  return found;
}

/**
 * The capture time of a packet: `exif:DateTimeOriginal`, then `photoshop:DateCreated` (the
 * date the content was created, e.g. a film photo's), then `xmp:CreateDate` (when the
 * digital file was made: often a later scan or export, so last). A reading without an
 * offset takes the offset of a later property that shows the same wall-clock time.
 */
export function xmpCaptureDate(props: ReadonlyMap<string, string>): ParsedDate | null {
  const order = [WANTED.dateTimeOriginal, WANTED.dateCreated, WANTED.createDate];
  const dates = order.map((name) => parseDateText(props.get(name)));
  const index = dates.findIndex((d) => d !== null);
  if (index < 0) return null;
  const date = dates[index]!;
  if (date.offsetMinutes !== null) return date;
  const same = dates
    .slice(index + 1)
    .find((d) => d !== null && d.offsetMinutes !== null && d.local.wallMs === date.local.wallMs);
  return same ? { local: date.local, offsetMinutes: same.offsetMinutes } : date;
}

/** Reads dates, GPS and device names from an XMP packet (a sidecar file or an embedded one). Throws when unparsable. */
export function parseXmp(xml: string): XmpData {
  const props = xmpProperties(xml);
  const coordinatesAt = (prefix: string): Coordinates | null =>
    validCoordinates(
      parseXmpCoordinate(props.get(prefix + WANTED.latitude)),
      parseXmpCoordinate(props.get(prefix + WANTED.longitude)),
    );
  return {
    date: xmpCaptureDate(props),
    coordinates: coordinatesAt(''),
    locationCreated: coordinatesAt(CREATED_PREFIX),
    make: cleanText(props.get(WANTED.make)),
    model: cleanText(props.get(WANTED.model)),
    lensModel: cleanText(props.get(WANTED.lensModel)) ?? cleanText(props.get(WANTED.lens)),
  };
}

/** An embedded packet: one that cannot be parsed is skipped with a warning, never fatal to the file. */
export function parseXmpPacket(xml: string, warnings: ExtractionWarning[]): XmpData | null {
  try {
    return parseXmp(xml);
  } catch (error) {
    warnings.push(
      warning('skipped_xmp', `XMP packet skipped: ${error instanceof Error ? error.message : String(error)}`),
    );
    return null;
  }
}
