/**
 * A zip member's local header: the 30 fixed bytes before its name, extra field and data. The
 * one place a local header is read: the listing of a cut download (zip-list.ts), the main
 * thread's small reads and a nested zip's members (member-bytes.ts), and the threads' reads
 * (read-member.ts) all find a member's bytes through memberDataRange.
 */

/** The signature every local header starts with. */
export const LOCAL_HEADER = 0x04034b50;
/** The fixed part of a local header. */
export const LOCAL_HEADER_BYTES = 30;

/** Every field of a local header's fixed part. */
export interface LocalHeader {
  version: number;
  flags: number;
  method: number;
  time: number;
  date: number;
  crc32: number;
  compressedSize: number;
  size: number;
  nameLength: number;
  extraLength: number;
  /** Where the member's name starts (the header's offset plus its fixed part). */
  nameStart: number;
  /** Where the member's data starts, past its name and extra field. */
  dataStart: number;
}

/**
 * The fixed bytes of a local header read at `headerOffset`, parsed once; null when they are
 * not a local header (another signature, or fewer than 30 bytes).
 */
export function parseLocalHeader(fixed: Buffer, headerOffset: number): LocalHeader | null {
  if (fixed.length < LOCAL_HEADER_BYTES || fixed.readUInt32LE(0) !== LOCAL_HEADER) return null;
  const nameLength = fixed.readUInt16LE(26);
  const extraLength = fixed.readUInt16LE(28);
  const nameStart = headerOffset + LOCAL_HEADER_BYTES;
  return {
    version: fixed.readUInt16LE(4),
    flags: fixed.readUInt16LE(6),
    method: fixed.readUInt16LE(8),
    time: fixed.readUInt16LE(10),
    date: fixed.readUInt16LE(12),
    crc32: fixed.readUInt32LE(14),
    compressedSize: fixed.readUInt32LE(18),
    size: fixed.readUInt32LE(22),
    nameLength,
    extraLength,
    nameStart,
    dataStart: nameStart + nameLength + extraLength,
  };
}

/**
 * Where a member's data lies: from its parsed local header (the central directory's name and
 * extra field lengths may differ from the local ones, and only these say where the data
 * starts) for `compressedSize` bytes (the listing's: a local header may leave them to a data
 * descriptor). Null when there was no local header.
 */
export function memberDataRange(
  header: LocalHeader | null,
  compressedSize: number,
): { start: number; end: number } | null {
  return header === null ? null : { start: header.dataStart, end: header.dataStart + compressedSize };
}
