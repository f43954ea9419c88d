import type { ByteSource } from '../types.js';
import { readRange, viewOf } from './bytes.js';
import { ParseProblem } from './errors.js';

const TYPE_SIZES: Record<number, number> = { 1: 1, 2: 1, 3: 2, 4: 4, 5: 8, 6: 1, 7: 1, 8: 2, 9: 4, 10: 8, 11: 4, 12: 8, 13: 4 };
const EXIF_IFD = 0x8769;
const GPS_IFD = 0x8825;
const MAX_ENTRIES = 1000;
// Values beyond this are pixel or maker data, never the tags camroll reads.
const MAX_VALUE_BYTES = 64 * 1024;

/**
 * For a file that is itself a TIFF structure (TIFF, DNG, CR2, NEF, ARW, ORF, RW2), finds
 * how many leading bytes hold IFD0, the Exif IFD and the GPS IFD with their small values,
 * so exactly that prefix is handed to the EXIF parser. Reads IFD tables through `bytes`
 * when they lie beyond the head.
 */
export async function tiffMetadataSpan(bytes: ByteSource): Promise<number> {
  const header = await readRange(bytes, 0, 8);
  const little = header[0] === 0x49;
  const first = viewOf(header).getUint32(4, little);
  let end = 8;
  const pending = [first];
  const seen = new Set<number>();
  while (pending.length > 0 && seen.size < 8) {
    const offset = pending.shift()!;
    if (offset === 0 || seen.has(offset)) continue;
    seen.add(offset);
    const countBytes = await readRange(bytes, offset, 2);
    const count = viewOf(countBytes).getUint16(0, little);
    if (count > MAX_ENTRIES) throw new ParseProblem('corrupt_file', `IFD at ${offset} claims ${count} entries`);
    const table = await readRange(bytes, offset + 2, count * 12);
    const view = viewOf(table);
    end = Math.max(end, offset + 2 + count * 12 + 4);
    for (let i = 0; i < count; i++) {
      const base = i * 12;
      const tag = view.getUint16(base, little);
      const type = view.getUint16(base + 2, little);
      const n = view.getUint32(base + 4, little);
      const size = (TYPE_SIZES[type] ?? 1) * n;
      const valueOffset = view.getUint32(base + 8, little);
      if (tag === EXIF_IFD || tag === GPS_IFD) pending.push(valueOffset);
      else if (size > 4 && size <= MAX_VALUE_BYTES && valueOffset + size <= bytes.size) end = Math.max(end, valueOffset + size);
    }
  }
  return Math.min(end, bytes.size);
}
