import type { SidecarTexts } from '../read-file.js';

/**
 * What a worker thread needs to read one archive member: where its bytes are, and the
 * text of the sidecars matched to it by name across every part of the export. Plain data:
 * it crosses to the thread by structured clone (the buffers it holds are transferred).
 */
export type MemberSource =
  /** A zip member: its local header at `headerOffset` in the archive file. */
  | {
      kind: 'zip';
      archive: string;
      headerOffset: number;
      compressedSize: number;
      size: number;
      method: number;
      crc32: number;
    }
  /**
   * A member of a zip the main thread holds in memory (a zip inside a zip): its compressed
   * bytes as stored, inflated and checked on the thread exactly as a zip member read in memory.
   */
  | { kind: 'compressed'; data: Uint8Array; method: number; size: number; crc32: number }
  /** Bytes already read by the main thread (a `.tar` or `.tgz` member). */
  | { kind: 'bytes'; data: Uint8Array }
  /**
   * A tar member too large to hold (a long video): hashed by the main thread as the stream
   * passed (`id`), with only its first bytes and its last (`tail`, ending at `size`) kept for
   * the metadata readers.
   */
  | { kind: 'ends'; head: Uint8Array; tail: Uint8Array; size: number; id: string };

export interface MemberTask {
  /** `archive!/member`: the record's absPath; its last part is the filename. */
  absPath: string;
  source: MemberSource;
  /** Texts of the matched sidecars (null when none). */
  sidecars: SidecarTexts;
}

/**
 * Limits that keep a zip bomb from growing memory or time: a member's declared size, and
 * how many times its compressed bytes may expand (photos and videos barely compress; a
 * ratio above this is highly compressible filler). Small members are exempt from the ratio.
 */
export const ARCHIVE_LIMITS = {
  maxMemberBytes: 64 * 1024 ** 3, // 64 GiB: larger than any single photo or video
  maxRatio: 100,
  ratioFloorBytes: 1024 * 1024, // 1 MiB: a small text or blank image may compress well
  /** Members inflated in memory at most this large; larger ones are streamed. */
  inMemoryBytes: 64 * 1024 * 1024,
  /**
   * What is kept of a larger tar member for the readers: an MP4 or MOV keeps its `moov` (its
   * capture time, place, duration) at the start or the end, and a `moov` is a few MB even for
   * an hour of video.
   */
  endsHeadBytes: 8 * 1024 * 1024,
  endsTailBytes: 16 * 1024 * 1024,
  /** A zip inside a zip (iCloud's `iCloud Shared Albums.zip`) is read in memory up to this size; one level deep. */
  nestedZipBytes: 128 * 1024 * 1024,
  /**
   * The budget of inflated bytes per archive: this many times its size on disk, and never less
   * than `budgetFloorBytes`. An export of photos and videos inflates to about its own size; a
   * `.tgz` of 6 MB that inflates to 6 GiB, or a zip of a thousand 1 MiB blanks (each under the
   * ratio floor), does not. Past it the archive ends with one `archive_limit` line.
   */
  budgetRatio: 100,
  budgetFloorBytes: 1024 ** 3,
  /**
   * A tar header that holds a name or attributes (PAX, GNU long name or long link) of more than
   * this is refused: tar-stream holds such a header whole, and names are short.
   */
  extendedHeaderBytes: 64 * 1024,
} as const;

/** The inflated bytes an archive of `archiveBytes` on disk may give (ARCHIVE_LIMITS.budgetRatio, with its floor). */
export function inflateBudget(archiveBytes: number): number {
  return Math.max(ARCHIVE_LIMITS.budgetFloorBytes, ARCHIVE_LIMITS.budgetRatio * archiveBytes);
}

/**
 * An archive's budget as its members are read: `take` the bytes a member inflates to (its
 * declared size: inflation never passes it); false once the archive is past its budget.
 */
export interface InflateBudget {
  take(bytes: number): boolean;
  readonly problem: string;
}

export function createInflateBudget(archiveBytes: number): InflateBudget {
  const budget = inflateBudget(archiveBytes);
  let spent = 0;
  return {
    take(bytes) {
      spent += bytes;
      return spent <= budget;
    },
    get problem() {
      return budgetProblem(archiveBytes);
    },
  };
}

/** The message of an archive that went past its budget. */
export function budgetProblem(archiveBytes: number): string {
  return (
    `the archive inflates past ${inflateBudget(archiveBytes)} bytes, its budget (${ARCHIVE_LIMITS.budgetRatio} ` +
    `times its ${archiveBytes} bytes on disk, never less than ${ARCHIVE_LIMITS.budgetFloorBytes}): not an ` +
    `export of photos and videos, possibly a zip bomb; the members before this point were read`
  );
}

/** Why a member is refused before any byte of it is inflated, or null. */
export function limitProblem(size: number, compressedSize: number): string | null {
  if (size > ARCHIVE_LIMITS.maxMemberBytes)
    return `the member declares ${size} bytes, more than the ${ARCHIVE_LIMITS.maxMemberBytes}-byte limit`;
  if (size > ARCHIVE_LIMITS.ratioFloorBytes && size > compressedSize * ARCHIVE_LIMITS.maxRatio) {
    const ratio = Math.round(size / Math.max(compressedSize, 1));
    return (
      `the member would expand ${ratio} times (limit ${ARCHIVE_LIMITS.maxRatio}): not a photo or video, ` +
      `possibly a zip bomb`
    );
  }
  return null;
}

/** The buffers a task's member source holds, moved to the thread rather than copied. */
export function memberBuffers(source: MemberSource): ArrayBuffer[] {
  if (source.kind === 'zip') return [];
  if (source.kind === 'ends') return [source.head.buffer as ArrayBuffer, source.tail.buffer as ArrayBuffer];
  return [source.data.buffer as ArrayBuffer];
}

/** Bytes a member's task holds in memory until a thread takes it. */
export function heldBytes(source: MemberSource): number {
  return memberBuffers(source).reduce((sum, buffer) => sum + buffer.byteLength, 0);
}
