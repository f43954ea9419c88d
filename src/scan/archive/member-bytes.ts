import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import * as fsp from 'node:fs/promises';
import { pipeline, Readable } from 'node:stream';
import * as zlib from 'node:zlib';
import type tar from 'tar-stream';
import { LOCAL_HEADER_BYTES, memberDataRange, parseLocalHeader } from './local-header.js';
import type { ZipEntry } from './zip-list.js';

/**
 * Member bytes the main thread reads itself: sidecars and CSVs (small), a nested zip (bounded),
 * and a tar stream's members on their way to a worker. Every inflation is capped.
 */

/** A member's bytes held whole (bounded by the tar header's size, itself bounded by the caller). */
export async function collect(entry: tar.Entry, size: number): Promise<Uint8Array> {
  // A fresh ArrayBuffer of its own: it is transferred to a worker thread, never copied.
  const data = new Uint8Array(new ArrayBuffer(size));
  let filled = 0;
  for await (const part of entry) {
    const chunk = part as Buffer;
    data.set(chunk.subarray(0, Math.max(0, size - filled)), filled);
    filled += chunk.length;
  }
  return filled === size ? data : data.subarray(0, Math.min(filled, size));
}

/**
 * A member too large to hold, read as it passes: its SHA-256, its first `headBytes` and its
 * last `tailBytes` (fresh ArrayBuffers, transferred to a worker). Null when the stream ends
 * before `size` bytes, or when `signal` stops it first (Ctrl-C during a long video).
 */
export async function collectEnds(
  entry: AsyncIterable<unknown>,
  options: { size: number; headBytes: number; tailBytes: number; signal?: AbortSignal },
): Promise<{ head: Uint8Array; tail: Uint8Array; id: string } | null> {
  const size = options.size;
  const head = new Uint8Array(new ArrayBuffer(Math.min(options.headBytes, size)));
  const tailStart = Math.max(head.length, size - options.tailBytes);
  const tail = new Uint8Array(new ArrayBuffer(size - tailStart));
  const hash = createHash('sha256');
  let position = 0;
  for await (const part of entry) {
    if (options.signal?.aborted) return null;
    const chunk = (part as Buffer).subarray(0, Math.max(0, size - position));
    hash.update(chunk);
    if (position < head.length) head.set(chunk.subarray(0, head.length - position), position);
    const end = position + chunk.length;
    if (end > tailStart) tail.set(chunk.subarray(Math.max(0, tailStart - position)), Math.max(0, position - tailStart));
    position = end;
  }
  return position === size ? { head, tail, id: `sha256:${hash.digest('hex')}` } : null;
}

export async function drain(entry: tar.Entry): Promise<void> {
  for await (const part of entry) void part;
}

/** A small member (a sidecar) read and inflated on the main thread; null when it cannot be. */
export async function readSmallMember(handle: fsp.FileHandle, entry: ZipEntry, limit: number): Promise<string | null> {
  return (await readMemberBytes(handle, entry, limit))?.toString('utf8') ?? null;
}

/** A member's bytes from a zip held in memory, inflated up to `limit`; null when it cannot be. */
export function inflateFromBuffer(zip: Buffer, entry: ZipEntry, limit: number): Buffer | null {
  if (!readable(entry, limit)) return null;
  const compressed = compressedInBuffer(zip, entry);
  return compressed === null ? null : inflated(compressed, entry);
}

/** A member's compressed bytes as stored in a zip held in memory; null when they do not lie whole there. */
export function compressedInBuffer(zip: Buffer, entry: ZipEntry): Buffer | null {
  const fixed = zip.subarray(entry.headerOffset, entry.headerOffset + LOCAL_HEADER_BYTES);
  const range = memberDataRange(parseLocalHeader(fixed, entry.headerOffset), entry.compressedSize);
  return range === null || range.end > zip.length ? null : zip.subarray(range.start, range.end);
}

/** A member read and inflated on the main thread (bounded by `limit`); null when it cannot be. */
export async function readMemberBytes(handle: fsp.FileHandle, entry: ZipEntry, limit: number): Promise<Buffer | null> {
  if (!readable(entry, limit)) return null;
  const fixed = Buffer.alloc(LOCAL_HEADER_BYTES);
  const { bytesRead: headerRead } = await handle.read(fixed, 0, fixed.length, entry.headerOffset);
  const range = memberDataRange(
    parseLocalHeader(fixed.subarray(0, headerRead), entry.headerOffset),
    entry.compressedSize,
  );
  if (range === null) return null;
  const compressed = Buffer.alloc(entry.compressedSize);
  const { bytesRead } = await handle.read(compressed, 0, compressed.length, range.start);
  if (bytesRead < compressed.length) return null;
  return inflated(compressed, entry);
}

/** Whether a member is one the main thread may read: stored or deflated, not encrypted, declared within `limit`. */
function readable(entry: ZipEntry, limit: number): boolean {
  return (entry.method === 0 || entry.method === 8) && !entry.encrypted && entry.size <= limit;
}

/**
 * A deflated member inflated whole, one byte past its declared size at most: a member that
 * would grow further costs nothing (zlib throws a RangeError), one that is short is returned
 * short. Damaged data throws zlib's error.
 */
export function inflateCapped(compressed: Buffer, size: number): Buffer {
  return zlib.inflateRawSync(compressed, { maxOutputLength: size + 1 });
}

/**
 * A member's bytes, or null when they are damaged or not the size its headers declare (a
 * sidecar that is not what the zip says is not read at all). Inflation stops one byte past
 * the declared size, so a member that would grow further costs nothing.
 */
function inflated(compressed: Buffer, entry: ZipEntry): Buffer | null {
  try {
    const data = entry.method === 0 ? compressed : inflateCapped(compressed, entry.size);
    return data.length === entry.size ? data : null;
  } catch {
    return null;
  }
}

/**
 * A member's bytes as a stream, inflated as they are read (an iCloud CSV of any size is
 * never held whole): from the archive file on disk, or a zip held in memory. Inflation stops
 * with an error one byte past the declared size. Throws when there is no local header.
 */
export async function* memberStream(zip: string | Buffer, entry: ZipEntry): AsyncGenerator<Buffer> {
  if ((entry.method !== 0 && entry.method !== 8) || entry.encrypted)
    throw new Error('the member is encrypted or compressed in a way camroll does not read');
  let raw: AsyncIterable<Buffer>;
  if (typeof zip === 'string') {
    const handle = await fsp.open(zip, 'r');
    let start: number;
    try {
      const fixed = Buffer.alloc(LOCAL_HEADER_BYTES);
      const { bytesRead } = await handle.read(fixed, 0, fixed.length, entry.headerOffset);
      const range = memberDataRange(
        parseLocalHeader(fixed.subarray(0, bytesRead), entry.headerOffset),
        entry.compressedSize,
      );
      if (range === null) throw new Error('no local header where the directory says');
      start = range.start;
    } finally {
      await handle.close();
    }
    raw =
      entry.compressedSize === 0
        ? (async function* () {})()
        : createReadStream(zip, { start, end: start + entry.compressedSize - 1, highWaterMark: 256 * 1024 });
  } else {
    const compressed = compressedInBuffer(zip, entry);
    if (compressed === null) throw new Error('no whole member where the directory says');
    raw = Readable.from([compressed]);
  }
  let source: AsyncIterable<Buffer> = raw;
  if (entry.method === 8) {
    const inflate = zlib.createInflateRaw({ chunkSize: 256 * 1024 });
    pipeline(Readable.from(raw), inflate, () => undefined); // an error ends the inflation with it
    source = inflate;
  }
  let total = 0;
  for await (const chunk of source) {
    total += chunk.length;
    if (total > entry.size) throw new Error('the member inflates past its declared size');
    yield chunk;
  }
}
