/** A zip member's local header: the 30 fixed bytes before its name, extra field and data. */

/** The signature every local header starts with. */
export const LOCAL_HEADER = 0x04034b50;
/** The fixed part of a local header. */
export const LOCAL_HEADER_BYTES = 30;

/**
 * Where a member's data starts, from the fixed bytes of its local header read at
 * `headerOffset`; null when they are not a local header (another signature, or fewer than
 * 30 bytes). The central directory's sizes are not repeated here: its name and extra field
 * lengths may differ from the local ones, and only these say where the data is.
 */
export function localDataStart(header: Buffer, headerOffset: number): number | null {
  if (header.length < LOCAL_HEADER_BYTES || header.readUInt32LE(0) !== LOCAL_HEADER) return null;
  return headerOffset + LOCAL_HEADER_BYTES + header.readUInt16LE(26) + header.readUInt16LE(28);
}
