import { z } from 'zod';
import type { Coordinates } from './coordinates.js';
import { validCoordinates } from './coordinates.js';

/** What a Google Takeout JSON sidecar says, already validated. */
export interface TakeoutData {
  /** photoTakenTime as epoch milliseconds (UTC); null when absent or "0". */
  takenMs: number | null;
  coordinates: Coordinates | null;
}

const Geo = z.object({ latitude: z.coerce.number(), longitude: z.coerce.number() }).partial();
const TakeoutJson = z.object({
  photoTakenTime: z.object({ timestamp: z.union([z.string(), z.number()]) }).partial().optional().catch(undefined),
  geoDataExif: Geo.optional().catch(undefined),
  geoData: Geo.optional().catch(undefined),
});

function geo(value: z.infer<typeof Geo> | undefined): Coordinates | null {
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
  const parsed = TakeoutJson.safeParse(raw);
  if (!parsed.success) return null;
  const seconds = Number(parsed.data.photoTakenTime?.timestamp);
  const takenMs = Number.isFinite(seconds) && Number.isInteger(seconds) && seconds > 0 ? seconds * 1000 : null;
  return { takenMs, coordinates: geo(parsed.data.geoDataExif) ?? geo(parsed.data.geoData) };
}
