import { formatInstant } from '../extract/dates.js';
import { parseTakeout } from '../extract/takeout.js';
import type { ScanEvent, ScanRecord } from '../types.js';
import { MEMBER_SEPARATOR } from '../sources/member-path.js';
import type { MatchedSidecars } from './sidecar-index.js';

/**
 * A tar stream may hold a photo before its Takeout JSON (or the JSON in a later part): such
 * a photo is read without it, held, and given it here once every archive has been read.
 * The Takeout rule ranks above every rule of the file's own bytes (README, "How capture time
 * is resolved": only an XMP sidecar with an offset comes first), so applying it afterwards
 * gives what reading the photo beside its JSON gives: `photoTakenTime` replaces the capture
 * time, `geoData` the coordinates. An XMP sidecar met after its photo is not applied.
 */
export async function applyLateSidecars(
  held: ScanRecord[],
  find: (member: string) => MatchedSidecars,
): Promise<ScanEvent[]> {
  return held.map((record): ScanEvent => ({ type: 'record', record: withLateSidecars(record, find) }));
}

function withLateSidecars(record: ScanRecord, find: (member: string) => MatchedSidecars): ScanRecord {
  if (!record.media || !record.source || record.archive === undefined) return record;
  const member = record.absPath.slice(record.archive.length + MEMBER_SEPARATOR.length);
  const text = find(member).takeout;
  const takeout = text === null ? null : parseTakeout(text);
  if (takeout === null) return record;
  const media = { ...record.media };
  const source = { ...record.source };
  const taken = takeout.takenMs === null ? null : formatInstant({ utcMs: takeout.takenMs, hasFraction: false });
  if (taken !== null) {
    media.taken_at = taken;
    source.taken_at = 'takeout';
  }
  if (takeout.coordinates) {
    media.latitude = takeout.coordinates.latitude;
    media.longitude = takeout.coordinates.longitude;
    source.coordinates = 'takeout';
  }
  return { ...record, media, source };
}
