import * as zlib from 'node:zlib';

/**
 * Byte surgery on a zip held in memory, for tests of damaged archives: each function
 * returns a patched copy and leaves the rest of the file as it was.
 */

const CENTRAL_HEADER = 0x02014b50;

/** The offsets of a member's central directory record and local header, found by its name. */
export function findMember(zip: Buffer, name: string): { central: number; local: number } {
  const wanted = Buffer.from(name);
  for (let at = zip.lastIndexOf(Buffer.from([0x50, 0x4b, 0x01, 0x02])); at >= 0; at--) {
    if (zip.readUInt32LE(at) !== CENTRAL_HEADER) continue;
    const nameLength = zip.readUInt16LE(at + 28);
    if (nameLength === wanted.length && zip.subarray(at + 46, at + 46 + nameLength).equals(wanted))
      return { central: at, local: zip.readUInt32LE(at + 42) };
  }
  throw new Error(`no member named ${name}`);
}

/** Where a member's (compressed) data lies. */
export function memberData(zip: Buffer, name: string): { start: number; end: number } {
  const { central, local } = findMember(zip, name);
  const start = local + 30 + zip.readUInt16LE(local + 26) + zip.readUInt16LE(local + 28);
  return { start, end: start + zip.readUInt32LE(central + 20) };
}

/** A copy whose member declares another uncompressed size, in both its headers. */
export function declareSize(zip: Buffer, name: string, size: number): Buffer {
  const copy = Buffer.from(zip);
  const { central, local } = findMember(copy, name);
  copy.writeUInt32LE(size, central + 24);
  copy.writeUInt32LE(size, local + 22);
  return copy;
}

/** A copy whose stored member's bytes are replaced by others of the same length (its CRC-32 made right). */
export function replaceStored(zip: Buffer, name: string, data: Buffer): Buffer {
  const copy = Buffer.from(zip);
  const { central, local } = findMember(copy, name);
  const { start, end } = memberData(copy, name);
  if (end - start !== data.length || copy.readUInt16LE(central + 10) !== 0)
    throw new Error(`${name} is not a stored member of ${data.length} bytes`);
  data.copy(copy, start);
  const crc = zlib.crc32(data) >>> 0;
  copy.writeUInt32LE(crc, central + 16);
  copy.writeUInt32LE(crc, local + 14);
  return copy;
}

/** A copy whose member declares another CRC-32, in both its headers (its data untouched). */
export function declareCrc(zip: Buffer, name: string, crc: number): Buffer {
  const copy = Buffer.from(zip);
  const { central, local } = findMember(copy, name);
  copy.writeUInt32LE(crc >>> 0, central + 16);
  copy.writeUInt32LE(crc >>> 0, local + 14);
  return copy;
}

/** A copy whose member's compressed data is overwritten with zeros (no longer a deflate stream). */
export function zeroData(zip: Buffer, name: string): Buffer {
  const copy = Buffer.from(zip);
  const { start, end } = memberData(copy, name);
  copy.fill(0, start, end);
  return copy;
}

/** A member's bytes as stored (compressed, when it is). */
export function storedBytes(zip: Buffer, name: string): Buffer {
  const { start, end } = memberData(zip, name);
  return zip.subarray(start, end);
}
