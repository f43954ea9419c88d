import type { CoordinatesSource, ScanRecord, TakenAtSource } from '../../scan/index.js';
import { missingForMatching } from '../../rules/rejection.js';

/** Where each capture-time rule takes the time from, in words support can repeat. */
const TAKEN_AT_WORDS: Record<TakenAtSource, string> = {
  exif_offset: 'EXIF DateTimeOriginal with its OffsetTimeOriginal (the camera recorded the offset)',
  xmp: 'an XMP date that carries its offset',
  video_creationdate: 'the QuickTime creationdate key (it carries its offset)',
  takeout: 'the Google Takeout sidecar (photoTakenTime, UTC)',
  gps_time: 'the local EXIF time, placed by the GPS clock (the offset is local time minus GPS time)',
  timezone_lookup: 'the local EXIF time, placed in the time zone at the coordinates',
  video_mvhd: 'the video header (mvhd creation time, UTC)',
  icloud_csv: "the iCloud export's Photo Details.csv (originalCreationDate, UTC, to the minute)",
};

const COORDINATES_WORDS: Record<CoordinatesSource, string> = {
  takeout: 'the Google Takeout sidecar (geoData)',
  xmp: 'the XMP sidecar',
  exif_gps: 'EXIF GPS',
  video_iso6709: 'the video location (ISO 6709)',
  video_loci: 'the video location (3GPP loci)',
};

/** The zone a timezone lookup used, and its offset at the capture time, when known. */
export interface ZoneNote {
  zone: string;
  offset: string;
}

/**
 * A human explanation of one scanned file (`camroll scan FILE`): each value sent, and which
 * tag, sidecar or rule gave it; why it would be rejected; or the error that kept it unread.
 */
export function explainRecord(record: ScanRecord, shownPath: string, zone: ZoneNote | null): string {
  const lines = [shownPath];
  const row = (label: string, value: string): void => {
    lines.push(`  ${label.padEnd(13)}${value}`);
  };
  if (record.error !== null || record.media === null) {
    row('error', `${record.error?.message ?? 'not read'} [${record.error?.code ?? 'internal_error'}]`);
    return `${lines.join('\n')}\n`;
  }
  const { media } = record;
  const source = record.source;
  row('id', media.id);
  if (media.taken_at === null)
    row('taken_at', 'unknown: no capture time with an offset, GPS clock, coordinates or video header');
  else {
    const how = source?.taken_at ? TAKEN_AT_WORDS[source.taken_at] : 'unknown rule';
    row('taken_at', `${media.taken_at}  from ${how}`);
    if (source?.taken_at === 'timezone_lookup' && zone !== null)
      row('', `zone ${zone.zone} at the coordinates, UTC${zone.offset} then`);
  }
  if (media.latitude === null || media.longitude === null)
    row('coordinates', 'unknown: no GPS in the file or its sidecars');
  else {
    const how = source?.coordinates ? COORDINATES_WORDS[source.coordinates] : 'unknown source';
    row('coordinates', `${media.latitude}, ${media.longitude}  from ${how}`);
  }
  row('type', media.duration_seconds === null ? media.media_type : `${media.media_type}, ${media.duration_seconds} s`);
  const device = [media.device_make, media.device_model].filter((part) => part !== null).join(' ');
  if (device !== '')
    row('device', media.device_lens_model === null ? device : `${device}, lens ${media.device_lens_model}`);
  const missing = missingForMatching(media);
  row('matching', missing === null ? 'can be matched (place and time known)' : `would be rejected: ${missing}`);
  if (record.cached) row('', '(from the scan cache; --no-cache reads the file again)');
  return `${lines.join('\n')}\n`;
}
