import type { MediaType } from '../contract/index.js';
import type { OriginDecision, OriginSignals } from './evidence/origin.js';
import type { Paired } from './evidence/pairing.js';

/** Which rule gave `taken_at` (see README, "How capture time is resolved"). */
export type TakenAtSource =
  | 'exif_offset' // DateTimeOriginal + OffsetTimeOriginal (+ SubSecTimeOriginal)
  | 'xmp' // an XMP date with an explicit offset
  | 'video_creationdate' // com.apple.quicktime.creationdate (carries its offset)
  | 'takeout' // Google Takeout photoTakenTime (epoch seconds, UTC)
  | 'gps_time' // local time + GPSDateStamp/GPSTimeStamp
  | 'timezone_lookup' // local time + IANA zone at the coordinates
  | 'video_mvhd' // ISO-BMFF mvhd creation time (UTC)
  | 'icloud_csv'; // an iCloud export's Photo Details.csv originalCreationDate (UTC, to the minute), when nothing else gave one

/** Which source gave the coordinates. */
export type CoordinatesSource = 'takeout' | 'xmp' | 'exif_gps' | 'video_iso6709' | 'video_loci';

export interface SourceInfo {
  taken_at: TakenAtSource | null;
  coordinates: CoordinatesSource | null;
  /**
   * Present only when the readers skipped part of the file (a bad EXIF entry, a JPEG segment
   * of the wrong length, an unparsable XMP packet) and kept the rest: codes of
   * `src/scan/extract/warnings.ts`.
   */
  warnings?: FileProblem[];
  /**
   * Present only when the file or its sidecars speak of its origin (evidence/origin.ts): kept
   * with the record (the scan cache stores it), never printed as such; the `--jsonl` line
   * shows the `origin` decided from it instead.
   */
  evidence?: OriginSignals;
}

/** The MediaMetadata of one file, exactly as sync sends it (null where unknown). */
export interface ScannedMedia {
  id: string;
  taken_at: string | null;
  latitude: number | null;
  longitude: number | null;
  media_type: MediaType;
  filename: string;
  duration_seconds: number | null;
  device_make: string | null;
  device_model: string | null;
  device_lens_model: string | null;
}

/** Everything extraction learns about a file except its id (the hash). */
export type ExtractedMedia = Omit<ScannedMedia, 'id'>;

export interface Extraction {
  media: ExtractedMedia;
  source: SourceInfo;
}

/**
 * Random access to one open file. `head` is the first chunk, already read: it feeds the
 * metadata readers and the hash, so small files are read exactly once.
 */
export interface ByteSource {
  readonly size: number;
  readonly head: Uint8Array;
  read(offset: number, length: number): Promise<Uint8Array>;
}

/** A file that could not be read or parsed: a stable code and a message for humans. */
export interface FileProblem {
  code: string;
  message: string;
}

/** One file found by a scan: either `media` (with `source`) or `error` is set. */
export interface ScanRecord {
  /** Relative to the scanned root it was found under (POSIX separators). */
  path: string;
  absPath: string;
  size: number;
  mtimeMs: number;
  media: ScannedMedia | null;
  source: SourceInfo | null;
  error: FileProblem | null;
  /** true when the record came from the scan cache without reading the file. */
  cached: boolean;
  /** For an archive member: the archive file on disk (`absPath` is `archive!/member`). */
  archive?: string;
  /** Where the file came from, once the scan's evidence stage has decided (src/scan/evidence). */
  origin?: RecordOrigin;
}

/** A record's origin, the rule that gave it, and whether it is sent (`left_out` is the class when not). */
export interface RecordOrigin extends OriginDecision {
  /** For the second file of a pair (a Live Photo's video, an edited copy): the pair's rule and the file sent. */
  pair: Paired<unknown>['pair'];
  /** Set when the file is not sent: its class (the run's `--include` does not name it). */
  left_out: OriginDecision['origin'] | null;
}

/**
 * What a scan streams: one `record` per media file found, a `skipped` notice per junk file
 * or folder left out on purpose, a `warning` for something that could not be walked.
 */
export type ScanEvent =
  | { type: 'record'; record: ScanRecord }
  | { type: 'skipped'; reason: string; path: string }
  | { type: 'warning'; code: string; path: string; message: string };
