import { basename, extname } from 'node:path';
import type { ByteSource, Extraction, SourceInfo } from '../types.js';
import { tagText } from './text.js';
import type { Coordinates } from './coordinates.js';
import { exifCoordinates } from './coordinates.js';
import type { ParsedDate } from './dates.js';
import { fractionToMillis, parseDateText, parseOffset } from './dates.js';
import { ParseProblem, asFileError } from './errors.js';
import type { ExifTags } from './exif.js';
import type { ContainerKind } from './formats.js';
import { mediaTypeOf, sniffContainer } from './formats.js';
import { gpsUtcMs } from './gps-time.js';
import type { PhotoFacts } from './photo.js';
import { readJpeg, readTiffBased } from './photo.js';
import { brandsOf, listBoxes, printable, readPayload } from './bmff.js';
import { readCr3, readHeif } from './heif.js';
import { readMini } from './mini.js';
import { readPng, readRaf, readWebp } from './png-webp.js';
import type { VideoFacts } from './video.js';
import { readVideo } from './video.js';
import { exifOriginMarks } from './origin-marks.js';
import type { OriginSignals } from '../evidence/origin.js';
import type { SidecarFinder, Sidecars } from './sidecars.js';
import { resolveTakenAt } from './taken-at.js';
import { warning } from './warnings.js';
import type { ZoneFinder } from './timezone.js';
import { loadDefaultZoneFinder } from './timezone.js';

export { MEDIA_EXTENSIONS, mediaTypeOf } from './formats.js';
export { createSidecarFinder } from './sidecars.js';
export type { SidecarFinder, SidecarFinderOptions, Sidecars } from './sidecars.js';
export { FILE_ERROR_CODES } from './errors.js';
export type { FileErrorCode } from './errors.js';

export { EXTRACTOR_VERSION } from './version.js';

/** Size of the first chunk the caller reads and passes as `ByteSource.head`. */
export const HEAD_BYTES = 256 * 1024; // 256 KiB: JPEG EXIF (<= 64 KiB) and most raw IFDs fit

export interface ExtractInput {
  /** Used for sidecar lookup and the filename. */
  absPath: string;
  bytes: ByteSource;
  sidecars: SidecarFinder;
  /** Loads the IANA zone lookup on first use (default: geo-tz's comprehensive data). */
  zoneFinder?: () => Promise<ZoneFinder>;
}

/** What a file's own bytes say, whatever its format. */
interface FileFacts extends PhotoFacts {
  video: VideoFacts | null;
}

const HEIF_BRANDS = new Set([
  'mif1',
  'mif2',
  'mif3',
  'msf1',
  'heic',
  'heix',
  'heim',
  'heis',
  'hevc',
  'hevs',
  'avif',
  'avis',
  'miaf',
]);
/** Major brands of HEIF image sequences (each also lists `msf1`): stored like a movie, shown as one photo. */
const SEQUENCE_BRANDS = new Set(['msf1', 'hevc', 'hevx', 'hevm', 'hevs', 'avis']);

async function readFacts(kind: ContainerKind, bytes: ByteSource): Promise<FileFacts> {
  const photo = async (facts: Promise<PhotoFacts>): Promise<FileFacts> => ({ ...(await facts), video: null });
  switch (kind) {
    case 'jpeg':
      return photo(readJpeg(bytes));
    case 'tiff':
    case 'orf':
    case 'rw2':
      return photo(readTiffBased(bytes));
    case 'png':
      return photo(readPng(bytes));
    case 'webp':
      return photo(readWebp(bytes));
    case 'raf':
      return photo(readRaf(bytes));
    case 'bmff':
      return readBmff(bytes);
    default:
      throw new ParseProblem('unsupported_format', 'the content is not an image or video format camroll reads');
  }
}

/**
 * ISO-BMFF: CR3, HEIF (a `meta` box, or the low-overhead `mini` box), a HEIF image sequence
 * (a `moov` but a photo: no duration), or a video. A file cut inside its last box keeps
 * what the boxes before the cut say, with a warning; the box a reader needs must be whole.
 */
async function readBmff(bytes: ByteSource): Promise<FileFacts> {
  const top = await listBoxes(bytes, 0, bytes.size, true);
  const ftyp = top.find((b) => b.type === 'ftyp');
  const brands = ftyp ? brandsOf(await readPayload(bytes, ftyp, 4096)) : [];
  const cut = top.find((b) => b.cut);
  const has = (type: string): boolean => top.some((b) => b.type === type);
  const heif = brands.some((b) => HEIF_BRANDS.has(b));
  // A file cut before the box its reader needs is cut, not corrupt.
  const needs = (type: string): void => {
    if (!cut || has(type)) return;
    const where = `box '${printable(cut.type)}' at ${cut.start}`;
    throw new ParseProblem('truncated_file', `the file ends inside ${where}, before a '${type}' box`);
  };
  let facts: FileFacts;
  if (brands.includes('crx ')) {
    needs('moov');
    facts = { ...(await readCr3(bytes, top)), video: null };
  } else if (heif && has('meta')) facts = { ...(await readHeif(bytes, top)), video: null };
  else if (heif && has('mini')) facts = { ...(await readMini(bytes, top)), video: null };
  else {
    needs('moov');
    const video = await readVideo(bytes, top);
    // An image sequence is a photo: its track's length is no duration.
    const shown = isImageSequence(brands) ? { ...video, durationSeconds: null } : video;
    facts = { tags: {}, xmp: null, warnings: [], video: shown };
  }
  if (cut) {
    const message = `the file ends inside box '${printable(cut.type)}' at ${cut.start}; the boxes before it were read`;
    facts.warnings = [...facts.warnings, warning('skipped_segment', message)];
  }
  return facts;
}

/**
 * A HEIF image sequence: `msf1` (the structural brand every one lists) or a sequence brand
 * as the major brand. Only as the major brand, since a compatible `hevc` alone is no proof.
 */
function isImageSequence(brands: string[]): boolean {
  return brands.includes('msf1') || SEQUENCE_BRANDS.has(brands[0] ?? '');
}

/** EXIF DateTimeOriginal (or DateTimeDigitized) with its own sub-seconds and offset. */
function exifDate(tags: ExifTags): ParsedDate | null {
  const pairs: [unknown, unknown, unknown][] = [
    [tags.DateTimeOriginal, tags.SubSecTimeOriginal, tags.OffsetTimeOriginal],
    [tags.DateTimeDigitized, tags.SubSecTimeDigitized, tags.OffsetTimeDigitized],
  ];
  for (const [text, subsec, offsetText] of pairs) {
    const parsed = parseDateText(text);
    if (!parsed) continue;
    const millis = parsed.local.hasFraction
      ? 0
      : fractionToMillis(typeof subsec === 'string' ? subsec : subsec === undefined ? null : String(subsec));
    const local = { wallMs: parsed.local.wallMs + millis, hasFraction: parsed.local.hasFraction || millis !== 0 };
    // OffsetTime (without "Original") belongs to ModifyDate and is never used here.
    const offset = parsed.offsetMinutes ?? parseOffset(offsetText);
    return { local, offsetMinutes: offset };
  }
  return null;
}

function firstCoordinates(
  candidates: [Coordinates | null, SourceInfo['coordinates']][],
): [Coordinates | null, SourceInfo['coordinates']] {
  for (const [coords, source] of candidates) if (coords) return [coords, source];
  return [null, null];
}

/**
 * Extracts metadata from one open file (and its sidecars); throws ScanError with a stable
 * code (see FILE_ERROR_CODES) on an unreadable or unparsable file. A file without any
 * metadata is not an error: it gives media with nulls.
 */
export async function extractFile(input: ExtractInput): Promise<Extraction> {
  try {
    return await extract(input);
  } catch (error) {
    // Nothing but a ScanError with a stable code leaves the extractor.
    throw asFileError(error, input.absPath);
  }
}

async function extract(input: ExtractInput): Promise<Extraction> {
  const { absPath, bytes } = input;
  if (bytes.size === 0) throw new ParseProblem('empty_file', 'the file is empty');
  const [facts, sidecars]: [FileFacts, Sidecars] = await Promise.all([
    readFacts(sniffContainer(bytes.head), bytes),
    input.sidecars.load(absPath),
  ]);
  const { tags } = facts;
  const embedded = facts.xmp;
  const video = facts.video;
  const [coordinates, coordinatesSource] = firstCoordinates([
    [sidecars.xmp?.coordinates ?? null, 'xmp'],
    [sidecars.takeout?.coordinates ?? null, 'takeout'],
    [exifCoordinates(tags), 'exif_gps'],
    [embedded?.coordinates ?? null, 'xmp'],
    [video?.coordinates ?? null, video?.coordinatesFromLoci ? 'video_loci' : 'video_iso6709'],
    // A place named afterwards (IPTC LocationCreated) never overrides a position recorded with the file.
    [sidecars.xmp?.locationCreated ?? embedded?.locationCreated ?? null, 'xmp'],
  ]);
  const ownExif = exifDate(tags);
  const taken = await resolveTakenAt(
    {
      xmp: sidecars.xmp?.date ?? null,
      embeddedXmp: embedded?.date ?? null,
      takeoutMs: sidecars.takeout?.takenMs ?? null,
      exif: ownExif,
      gpsMs: gpsUtcMs(tags.GPSDateStamp, tags.GPSTimeStamp),
      video: video?.date ?? null,
      mvhdMs: video?.mvhdMs ?? null,
    },
    coordinates,
    input.zoneFinder ?? loadDefaultZoneFinder,
  );
  const filename = basename(absPath);
  // The file's own skips first, then what was left out of its sidecars.
  const warnings = [...facts.warnings, ...(sidecars.warnings ?? []), ...(sidecars.takeout?.warnings ?? [])];
  const evidence: OriginSignals = {
    ...sidecars.takeout?.origin,
    ...exifOriginMarks(tags),
    ...(video?.contentId ? { content_id: video.contentId } : {}),
  };
  return {
    media: {
      taken_at: taken.taken_at,
      latitude: coordinates?.latitude ?? null,
      longitude: coordinates?.longitude ?? null,
      media_type: mediaTypeOf(extname(filename)),
      filename,
      duration_seconds: video?.durationSeconds ?? null,
      device_make: sidecars.xmp?.make ?? tagText(tags.Make) ?? embedded?.make ?? video?.make ?? null,
      device_model: sidecars.xmp?.model ?? tagText(tags.Model) ?? embedded?.model ?? video?.model ?? null,
      device_lens_model: sidecars.xmp?.lensModel ?? tagText(tags.LensModel) ?? embedded?.lensModel ?? null,
    },
    source: {
      taken_at: taken.source,
      coordinates: coordinatesSource,
      // Present only when something was skipped: what was read is kept, and the skip is said.
      ...(warnings.length > 0 ? { warnings: warnings.map(({ code, message }) => ({ code, message })) } : {}),
      ...(Object.keys(evidence).length > 0 ? { evidence } : {}),
    },
  };
}
