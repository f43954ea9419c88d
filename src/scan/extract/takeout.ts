import { createRequire } from 'node:module';
import type { z } from 'zod';
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
}

// Members are taken as they are and their types checked below: a coercing schema would turn
// `"40.75"` or `[1]` into a number, and a wrong type must be said, not mended.
function schemas(zod: typeof z) {
  const TakeoutJson = zod.object({
    photoTakenTime: zod.unknown().optional(),
    geoDataExif: zod.unknown().optional(),
    geoData: zod.unknown().optional(),
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
 * Parses a Takeout JSON sidecar. `photoTakenTime.timestamp` is epoch seconds in UTC ("0"
 * means none); coordinates come from `geoDataExif`, then `geoData` (0,0 means none). A
 * member of the wrong type is left out with a `skipped_sidecar` warning.
 * Returns null when the text is not a Takeout JSON object.
 */
export function parseTakeout(text: string): TakeoutData | null {
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
  return { takenMs: taken, coordinates: exif ?? plain, warnings };
}
