import type { ByteSource } from '../types.js';
import { ParseProblem } from './errors.js';

/** Largest single read a parser may ask for: metadata never needs more, hostile sizes never get it. */
export const MAX_METADATA_READ = 16 * 1024 * 1024; // 16 MiB

/**
 * Reads `length` bytes at `offset`, from the head when it covers the range. Throws a
 * ParseProblem (`truncated_file`) when the range runs past the end of the file.
 */
export async function readRange(bytes: ByteSource, offset: number, length: number): Promise<Uint8Array> {
  if (!Number.isSafeInteger(offset) || !Number.isSafeInteger(length) || offset < 0 || length < 0) {
    throw new ParseProblem('corrupt_file', `invalid range ${offset}+${length}`);
  }
  if (offset + length > bytes.size) {
    throw new ParseProblem(
      'truncated_file',
      `data at ${offset}+${length} lies past the end of the file (${bytes.size} bytes)`,
    );
  }
  if (length > MAX_METADATA_READ) {
    throw new ParseProblem('corrupt_file', `metadata block of ${length} bytes is implausibly large`);
  }
  if (offset + length <= bytes.head.length) return bytes.head.subarray(offset, offset + length);
  let chunk: Uint8Array;
  try {
    chunk = await bytes.read(offset, length);
  } catch (error) {
    const problem = new ParseProblem(
      'read_error',
      `read failed at ${offset}: ${error instanceof Error ? error.message : String(error)}`,
    );
    (problem as Error).cause = error;
    throw problem;
  }
  if (chunk.length < length) {
    throw new ParseProblem('truncated_file', `short read at ${offset}: ${chunk.length} of ${length} bytes`);
  }
  return chunk.length === length ? chunk : chunk.subarray(0, length);
}

/** A DataView over a byte array, sharing its memory. */
export function viewOf(data: Uint8Array): DataView {
  return new DataView(data.buffer, data.byteOffset, data.byteLength);
}

/** Latin-1 text of a byte range (box types, chunk ids, magic numbers). */
export function ascii(data: Uint8Array, start: number, end: number): string {
  let out = '';
  const stop = Math.min(end, data.length);
  for (let i = start; i < stop; i++) out += String.fromCharCode(data[i]!);
  return out;
}

/** A ByteSource over bytes already in memory (an embedded EXIF block, a preview). */
export function memorySource(data: Uint8Array): ByteSource {
  return { size: data.length, head: data, read: async (offset, length) => data.subarray(offset, offset + length) };
}
