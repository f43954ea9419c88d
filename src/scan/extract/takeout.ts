import { createRequire } from 'node:module';
import type { z } from 'zod';
import type { Coordinates } from './coordinates.js';
import { validCoordinates } from './coordinates.js';

/** What a Google Takeout JSON sidecar says, already validated. */
export interface TakeoutData {
  /** photoTakenTime as epoch milliseconds (UTC); null when absent or "0". */
  takenMs: number | null;
  coordinates: Coordinates | null;
}

function schemas(zod: typeof z) {
  const Geo = zod.object({ latitude: zod.coerce.number(), longitude: zod.coerce.number() }).partial();
  const TakeoutJson = zod.object({
    photoTakenTime: zod
      .object({ timestamp: zod.union([zod.string(), zod.number()]) })
      .partial()
      .optional()
      .catch(undefined),
    geoDataExif: Geo.optional().catch(undefined),
    geoData: Geo.optional().catch(undefined),
  });
  return { Geo, TakeoutJson };
}

// Built on the first Takeout sidecar: zod is most of a scan thread's start-up, and most
// libraries have no Takeout JSON at all.
let built: ReturnType<typeof schemas> | null = null;
const takeoutJson = (): ReturnType<typeof schemas>['TakeoutJson'] =>
  (built ??= schemas((createRequire(import.meta.url)('zod') as { z: typeof z }).z)).TakeoutJson;

function geo(value: z.infer<ReturnType<typeof schemas>['Geo']> | undefined): Coordinates | null {
  if (!value || value.latitude === undefined || value.longitude === undefined) return null;
  return validCoordinates(value.latitude, value.longitude);
}

/**
 * Parses a Takeout JSON sidecar. `photoTakenTime.timestamp` is epoch seconds in UTC ("0"
 * means none); coordinates come from `geoDataExif`, then `geoData` (0,0 means none).
 * Returns null when the text is not a Takeout JSON object.
 */
export function parseTakeout(text: string): TakeoutData | null {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return null;
  }
  const parsed = takeoutJson().safeParse(raw);
  if (!parsed.success) return null;
  const seconds = Number(parsed.data.photoTakenTime?.timestamp);
  const takenMs = Number.isFinite(seconds) && Number.isInteger(seconds) && seconds > 0 ? seconds * 1000 : null;
  return { takenMs, coordinates: geo(parsed.data.geoDataExif) ?? geo(parsed.data.geoData) };
}
