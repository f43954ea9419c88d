import { createRequire } from 'node:module';
import type { z } from 'zod';
import type { OriginSignals, TakeoutOriginKind } from '../evidence/origin.js';
import type { Coordinates } from './coordinates.js';
import { validCoordinates } from './coordinates.js';

/** What a Google Takeout JSON sidecar says, already validated. */
export interface TakeoutData {
  /** photoTakenTime as epoch milliseconds (UTC); null when absent or "0". */
  takenMs: number | null;
  coordinates: Coordinates | null;
  /** What the JSON says of the item's origin (`googlePhotosOrigin`, `appSource`, `trashed`); empty when nothing. */
  origin: Pick<OriginSignals, 'takeout_origin' | 'takeout_folder' | 'takeout_app' | 'takeout_trashed'>;
}

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
  const Geo = zod.object({ latitude: zod.coerce.number(), longitude: zod.coerce.number() }).partial();
  const TakeoutJson = zod.object({
    photoTakenTime: zod
      .object({ timestamp: zod.union([zod.string(), zod.number()]) })
      .partial()
      .optional()
      .catch(undefined),
    geoDataExif: Geo.optional().catch(undefined),
    geoData: Geo.optional().catch(undefined),
    // Origin members: each read on its own, a wrong shape is simply no signal.
    googlePhotosOrigin: zod.record(zod.string(), zod.unknown()).optional().catch(undefined),
    appSource: zod
      .object({ androidPackageName: zod.string().max(MAX_ORIGIN_TEXT) })
      .partial()
      .optional()
      .catch(undefined),
    trashed: zod.boolean().optional().catch(undefined),
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
  return {
    takenMs,
    coordinates: geo(parsed.data.geoDataExif) ?? geo(parsed.data.geoData),
    origin: originOf(parsed.data),
  };
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
