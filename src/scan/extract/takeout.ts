import { createRequire } from 'node:module';
import type { z } from 'zod';
import type { OriginSignals, TakeoutOriginKind } from '../evidence/origin.js';
import type { Coordinates } from './coordinates.js';
import { validCoordinates } from './coordinates.js';
import type { ExtractionWarning } from './warnings.js';
import { warning } from './warnings.js';

/** What a Google Takeout JSON sidecar says, already validated. */
export interface TakeoutData {
  /** photoTakenTime as epoch milliseconds (UTC); null when absent or "0". */
  takenMs: number | null;
  coordinates: Coordinates | null;
  /** Members of the wrong type, left out (`skipped_sidecar`): never coerced into a time or a place. */
  warnings: ExtractionWarning[];
  /** What the JSON says of the item's origin (`googlePhotosOrigin`, `appSource`, `trashed`); empty when nothing. */
  origin: Pick<OriginSignals, 'takeout_origin' | 'takeout_folder' | 'takeout_app' | 'takeout_trashed'>;
}

// Members are taken as they are and their types checked below: a coercing schema would turn
// `"40.75"` or `[1]` into a number, and a wrong type must be said, not mended.
/** The keys of `googlePhotosOrigin` that say how an item entered the library, in the order they are looked for. */
const ORIGIN_KINDS: readonly TakeoutOriginKind[] = [
  'fromPartnerSharing',
  'fromSharedAlbum',
  'mobileUpload',
  'driveSync',
  'webUpload',
];
/** A folder or package name longer than this is no phone's: not kept. */
const MAX_ORIGIN_TEXT = 256;

function schemas(zod: typeof z) {
  const TakeoutJson = zod.object({
    photoTakenTime: zod.unknown().optional(),
    geoDataExif: zod.unknown().optional(),
    geoData: zod.unknown().optional(),
    // Origin members: each read on its own, a wrong shape is simply no signal.
    googlePhotosOrigin: zod.record(zod.string(), zod.unknown()).optional().catch(undefined),
    appSource: zod
      .object({ androidPackageName: zod.string().max(MAX_ORIGIN_TEXT) })
      .partial()
      .optional()
      .catch(undefined),
    trashed: zod.boolean().optional().catch(undefined),
  });
  return { TakeoutJson };
}

// Built on the first Takeout sidecar: zod is most of a scan thread's start-up, and most
// libraries have no Takeout JSON at all.
let built: ReturnType<typeof schemas> | null = null;
const takeoutJson = (): ReturnType<typeof schemas>['TakeoutJson'] =>
  (built ??= schemas((createRequire(import.meta.url)('zod') as { z: typeof z }).z)).TakeoutJson;

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** A short, bounded picture of a value of the wrong type, for a warning. */
function shown(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 40 ? `${text.slice(0, 40)}…` : text;
}

function wrongType(warnings: ExtractionWarning[], member: string, value: unknown, expected: string): void {
  warnings.push(
    warning(
      'skipped_sidecar',
      `Takeout JSON member ${member} is ${shown(value)}, not ${expected} as Google Takeout writes it: left out`,
    ),
  );
}

/** `geoData` / `geoDataExif`: numbers only; a member of another type is a warning and gives no place. */
function geo(value: unknown, member: string, warnings: ExtractionWarning[]): Coordinates | null {
  if (value === undefined) return null;
  if (!isObject(value)) {
    wrongType(warnings, member, value, 'an object');
    return null;
  }
  const { latitude, longitude } = value;
  if (latitude === undefined && longitude === undefined) return null;
  let ok = true;
  for (const [name, part] of [
    ['latitude', latitude],
    ['longitude', longitude],
  ] as const) {
    if (typeof part === 'number' || part === undefined) continue;
    wrongType(warnings, `${member}.${name}`, part, 'a number');
    ok = false;
  }
  if (!ok || typeof latitude !== 'number' || typeof longitude !== 'number') return null;
  return validCoordinates(latitude, longitude);
}

/**
 * `photoTakenTime.timestamp`: epoch seconds as Takeout writes them, a string of digits (or a
 * whole number). Anything else (`"1e9"`, `" 12"`, `[1]`) is a warning, never a time.
 */
function takenMs(value: unknown, warnings: ExtractionWarning[]): number | null {
  if (value === undefined) return null;
  if (!isObject(value)) {
    wrongType(warnings, 'photoTakenTime', value, 'an object');
    return null;
  }
  const stamp = value.timestamp;
  if (stamp === undefined) return null;
  const seconds =
    typeof stamp === 'string' && /^[0-9]{1,15}$/.test(stamp)
      ? Number(stamp)
      : typeof stamp === 'number' && Number.isSafeInteger(stamp)
        ? stamp
        : null;
  if (seconds === null) {
    wrongType(warnings, 'photoTakenTime.timestamp', stamp, 'a whole number of seconds');
    return null;
  }
  return seconds > 0 ? seconds * 1000 : null;
}

/**
 * What a Takeout JSON may hold before JSON.parse builds it: Google writes a few dozen objects
 * and arrays (a `people` list of hundreds at most), 4 levels deep. A 4 MB sidecar of 1.3
 * million empty objects ran a scan thread out of its heap. See docs/readme/archives.md, "Limits".
 */
export const TAKEOUT_LIMITS = { containers: 10_000, depth: 64 } as const;

const OPEN_BRACE = 0x7b;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACE = 0x7d;
const CLOSE_BRACKET = 0x5d;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/** Counts the objects and arrays of a JSON text and their nesting, strings skipped; why it is refused, or null. */
function jsonOverLimits(text: string): string | null {
  let containers = 0;
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      for (i += 1; i < text.length; i++) {
        const d = text.charCodeAt(i);
        if (d === BACKSLASH) i += 1;
        else if (d === QUOTE) break;
      }
    } else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      containers += 1;
      depth += 1;
      if (containers > TAKEOUT_LIMITS.containers)
        return `it holds more than ${TAKEOUT_LIMITS.containers} objects and arrays (the limit)`;
      if (depth > TAKEOUT_LIMITS.depth) return `it nests deeper than ${TAKEOUT_LIMITS.depth} levels (the limit)`;
    } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) depth -= 1;
  }
  return null;
}

/**
 * Parses a Takeout JSON sidecar. `photoTakenTime.timestamp` is epoch seconds in UTC ("0"
 * means none); coordinates come from `geoDataExif`, then `geoData` (0,0 means none). A
 * member of the wrong type is left out with a `skipped_sidecar` warning, and so is a whole
 * JSON past TAKEOUT_LIMITS. Returns null when the text is not a Takeout JSON object.
 */
export function parseTakeout(text: string): TakeoutData | null {
  const over = jsonOverLimits(text);
  if (over !== null)
    return {
      takenMs: null,
      coordinates: null,
      warnings: [warning('skipped_sidecar', `Takeout JSON left out: ${over}`)],
      origin: {},
    };
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return null;
  }
  if (!isObject(raw)) return null;
  const parsed = takeoutJson().safeParse(raw);
  if (!parsed.success) return null;
  const warnings: ExtractionWarning[] = [];
  const taken = takenMs(parsed.data.photoTakenTime, warnings);
  const exif = geo(parsed.data.geoDataExif, 'geoDataExif', warnings);
  const plain = geo(parsed.data.geoData, 'geoData', warnings);
  return { takenMs: taken, coordinates: exif ?? plain, warnings, origin: originOf(parsed.data) };
}

/** `googlePhotosOrigin` (its known key, and a mobile upload's device folder), `appSource`, `trashed`. */
function originOf(data: {
  googlePhotosOrigin?: Record<string, unknown> | undefined;
  appSource?: { androidPackageName?: string | undefined } | undefined;
  trashed?: boolean | undefined;
}): TakeoutData['origin'] {
  const out: TakeoutData['origin'] = {};
  const origin = data.googlePhotosOrigin;
  const kind = origin === undefined ? undefined : ORIGIN_KINDS.find((key) => Object.hasOwn(origin, key));
  if (kind !== undefined) {
    out.takeout_origin = kind;
    const folder = kind === 'mobileUpload' ? deviceFolder(origin?.mobileUpload) : null;
    if (folder !== null) out.takeout_folder = folder;
  }
  const app = data.appSource?.androidPackageName?.trim();
  if (app) out.takeout_app = app;
  if (data.trashed === true) out.takeout_trashed = true;
  return out;
}

/** `mobileUpload.deviceFolder.localFolderName`, when it is a short string. */
function deviceFolder(upload: unknown): string | null {
  if (typeof upload !== 'object' || upload === null) return null;
  const folder = (upload as { deviceFolder?: unknown }).deviceFolder;
  if (typeof folder !== 'object' || folder === null) return null;
  const name = (folder as { localFolderName?: unknown }).localFolderName;
  return typeof name === 'string' && name.trim() !== '' && name.length <= MAX_ORIGIN_TEXT ? name.trim() : null;
}
