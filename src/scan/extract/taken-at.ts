import type { TakenAtSource } from '../types.js';
import type { Coordinates } from './coordinates.js';
import type { Instant, LocalTime, ParsedDate } from './dates.js';
import { formatInstant, instantAtOffset } from './dates.js';
import { offsetFromGpsTime } from './gps-time.js';
import type { ZoneFinder } from './timezone.js';
import { zonedToUtc } from './timezone.js';

/** Everything a file and its sidecars say about when it was taken. */
export interface TimeEvidence {
  /** An XMP sidecar date (exif:DateTimeOriginal, xmp:CreateDate or photoshop:DateCreated). */
  xmp: ParsedDate | null;
  /** The same from the file's own embedded XMP packet. */
  embeddedXmp?: ParsedDate | null;
  /** Takeout photoTakenTime, epoch milliseconds (UTC). */
  takeoutMs: number | null;
  /** EXIF DateTimeOriginal (+ SubSecTimeOriginal) with OffsetTimeOriginal when present. */
  exif: ParsedDate | null;
  /** GPSDateStamp + GPSTimeStamp as a UTC instant. */
  gpsMs: number | null;
  /** QuickTime creationdate key (or udta ©day): with its offset, or a local reading. */
  video: ParsedDate | null;
  /** ISO-BMFF mvhd creation time, epoch milliseconds (UTC, 0 when unset). */
  mvhdMs: number | null;
}

export interface TakenAt {
  taken_at: string | null;
  source: TakenAtSource | null;
}

// mvhd values before this are unset clocks (1904, 1970) or camera defaults, not capture times.
const MVHD_FLOOR_MS = Date.UTC(2000, 0, 1);

/**
 * The local reading rules b and c work on, with the offset written beside it. An XMP
 * sidecar's reading wins (the user's edit); the EXIF offset still applies to it when both
 * show the same wall-clock time.
 */
export function effectiveLocal(evidence: TimeEvidence): ParsedDate | null {
  const { xmp, exif, video } = evidence;
  if (xmp) {
    if (xmp.offsetMinutes === null && exif && exif.offsetMinutes !== null && exif.local.wallMs === xmp.local.wallMs) {
      return { local: exif.local, offsetMinutes: exif.offsetMinutes };
    }
    return xmp;
  }
  // The embedded packet's reading stands in for a missing EXIF date, as a sidecar's would.
  return exif ?? evidence.embeddedXmp ?? video;
}

function result(instant: Instant, source: TakenAtSource): TakenAt | null {
  const text = formatInstant(instant);
  return text === null ? null : { taken_at: text, source };
}

/**
 * Resolves taken_at with the first rule that applies:
 * a. an explicit offset or UTC: XMP with offset, Takeout, EXIF offset, QuickTime creationdate;
 * b. a local reading and the GPS clock (offset rounded to 15 min, within ±14 h);
 * c. a local reading and the IANA zone at the coordinates;
 * d. mvhd creation time (UTC) when set and not before 2000;
 * e. null. Never the file's mtime, never the machine's zone.
 */
export async function resolveTakenAt(
  evidence: TimeEvidence,
  coordinates: Coordinates | null,
  loadZoneFinder: () => Promise<ZoneFinder>,
): Promise<TakenAt> {
  const local = effectiveLocal(evidence);
  const embedded = evidence.embeddedXmp ?? null;
  const fromSidecar = evidence.xmp !== null && local === evidence.xmp;
  const fromVideo = local !== null && local === evidence.video && local !== evidence.exif && local !== embedded;

  // Rule a, sidecars first (they are the user's edits): XMP with offset, Takeout, then the
  // file's own: EXIF with its offset, the embedded XMP date with its offset (when EXIF has
  // only a local time, or none), the QuickTime creation date.
  const withOffset = local && local.offsetMinutes !== null ? instantAtOffset(local.local, local.offsetMinutes) : null;
  const offsetSource: TakenAtSource =
    fromSidecar || local === embedded ? 'xmp' : fromVideo ? 'video_creationdate' : 'exif_offset';
  const embeddedInstant =
    !fromSidecar && embedded && embedded.offsetMinutes !== null
      ? instantAtOffset(embedded.local, embedded.offsetMinutes)
      : null;
  const ruleA: [Instant | null, TakenAtSource][] = [
    [fromSidecar ? withOffset : null, 'xmp'],
    [evidence.takeoutMs === null ? null : { utcMs: evidence.takeoutMs, hasFraction: false }, 'takeout'],
    [fromSidecar ? null : withOffset, offsetSource],
    [embeddedInstant, 'xmp'],
  ];
  for (const [instant, source] of ruleA) {
    const found = instant && result(instant, source);
    if (found) return found;
  }
  if (local && local.offsetMinutes === null) {
    const viaGps = evidence.gpsMs === null ? null : offsetFromGpsTime(local.local, evidence.gpsMs);
    if (viaGps !== null) {
      const found = result(instantAtOffset(local.local, viaGps), 'gps_time');
      if (found) return found;
    }
    if (coordinates) {
      const found = await viaZone(local.local, coordinates, loadZoneFinder);
      if (found) return found;
    }
  }
  if (evidence.mvhdMs !== null && evidence.mvhdMs >= MVHD_FLOOR_MS) {
    const found = result({ utcMs: evidence.mvhdMs, hasFraction: false }, 'video_mvhd');
    if (found) return found;
  }
  return { taken_at: null, source: null };
}

async function viaZone(
  local: LocalTime,
  at: Coordinates,
  loadZoneFinder: () => Promise<ZoneFinder>,
): Promise<TakenAt | null> {
  const find = await loadZoneFinder();
  const zone = find(at.latitude, at.longitude)[0];
  if (zone === undefined) return null;
  const placed = zonedToUtc(local, zone);
  return placed === null ? null : result(placed.instant, 'timezone_lookup');
}
