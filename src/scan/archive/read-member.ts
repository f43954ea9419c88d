import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import { once } from 'node:events';
import * as zlib from 'node:zlib';
import { CamrollError, ScanError, type ScanErrorCode } from '../../errors.js';
import {
  describeReadError,
  failure,
  givenSidecars,
  readAt,
  withId,
  type ExtractFn,
  type FileResult,
} from '../read-file.js';
import type { ByteSource, Extraction } from '../types.js';
import { LOCAL_HEADER_BYTES, memberDataRange, parseLocalHeader } from './local-header.js';
import { inflateCapped } from './member-bytes.js';
import { ARCHIVE_LIMITS, limitProblem, type MemberTask } from './types.js';

export interface MemberReaderOptions {
  extract: ExtractFn;
  /** How much of the member the metadata readers get up front. */
  headBytes: number;
  /** Read size for hashing the rest (default 1 MiB). */
  chunkBytes?: number;
  /**
   * Deflated members up to this size are inflated in one call, larger ones streamed (default
   * ARCHIVE_LIMITS.inMemoryBytes).
   */
  inMemoryBytes?: number;
}

/** A member that cannot be read: its error line (a ScanError of the catalogue; cached unless a read_error). */
const memberError = (code: ScanErrorCode, message: string): ScanError => new ScanError(code, '', message);

/**
 * Returns a function that reads one archive member the way read-file.ts reads a file: the
 * first chunk feeds the metadata readers and the SHA-256, the rest goes to the hash. A
 * stored member is read straight from the archive's file, once; a deflated one is inflated
 * in memory (bounded by its declared size, checked against the limits first) or, past
 * 64 MiB, streamed. A member of a nested zip comes as its compressed bytes and takes the
 * in-memory path. Zip members are checked against their CRC-32. A tar member comes as its
 * bytes or, past 64 MiB, as its two ends and the id the main thread hashed.
 */
export function createMemberReader(options: MemberReaderOptions): (task: MemberTask) => Promise<FileResult> {
  const chunk = Buffer.allocUnsafe(Math.max(options.chunkBytes ?? 1024 * 1024, options.headBytes));
  return async (task) => {
    const source = task.source;
    const declared = source.kind === 'bytes' ? source.data.length : source.size;
    const sidecars = givenSidecars(task.sidecars);
    const extract = (bytes: ByteSource): Promise<Extraction> =>
      options.extract({ absPath: task.absPath, bytes, sidecars });
    try {
      if (source.kind === 'bytes')
        return await fromBuffer(task, asBuffer(source.data), options.headBytes, extract, null);
      if (source.kind === 'ends') return await fromEnds(task, source, options.headBytes, extract);
      checkMember(source.method, source.size, source.kind === 'zip' ? source.compressedSize : source.data.length);
      if (source.kind === 'compressed')
        return await fromCompressed(task, asBuffer(source.data), source, options.headBytes, extract);
      const fd = fs.openSync(source.archive, 'r');
      try {
        const start = dataStart(fd, source.headerOffset);
        if (source.method === 0)
          return await fromFile(task, fd, start, source.size, chunk, options.headBytes, extract, source.crc32);
        if (source.size <= (options.inMemoryBytes ?? ARCHIVE_LIMITS.inMemoryBytes)) {
          const compressed = readExactly(fd, Buffer.allocUnsafe(source.compressedSize), start);
          return await fromCompressed(task, compressed, source, options.headBytes, extract);
        }
        return await fromStream(
          task,
          { fd, start, compressedSize: source.compressedSize, size: source.size },
          options.headBytes,
          extract,
          source.crc32,
        );
      } finally {
        fs.closeSync(fd);
      }
    } catch (error) {
      if (error instanceof CamrollError)
        return failure(task.absPath, declared, error.code, error.message, error.code !== 'read_error');
      return failure(task.absPath, declared, 'read_error', describeReadError(error), false);
    }
  };
}

/** A zip member camroll does not inflate (a bomb, another method, a stored one whose sizes differ) throws. */
function checkMember(method: number, size: number, compressedSize: number): void {
  const problem = limitProblem(size, compressedSize);
  if (problem !== null) throw memberError('archive_limit', problem);
  if (method === 0 && compressedSize !== size) throw memberError('corrupt_file', 'a stored member whose sizes differ');
  if (method !== 0 && method !== 8)
    throw memberError(
      'unsupported_format',
      `the member is compressed with method ${method}; camroll reads stored and deflated members`,
    );
}

function asBuffer(data: Uint8Array): Buffer {
  return Buffer.from(data.buffer, data.byteOffset, data.length);
}

/** A zip member's compressed bytes held whole: inflated in one call (bounded), then checked against its CRC-32. */
function fromCompressed(
  task: MemberTask,
  compressed: Buffer,
  member: { method: number; size: number; crc32: number },
  headBytes: number,
  extract: Extract,
): Promise<FileResult> {
  const data = member.method === 0 ? compressed : inflate(compressed, member.size);
  return fromBuffer(task, data, headBytes, extract, member.crc32);
}

/** Where a zip member's data starts, from its local header. */
function dataStart(fd: number, headerOffset: number): number {
  const fixed = readExactly(fd, Buffer.alloc(LOCAL_HEADER_BYTES), headerOffset);
  const start = memberDataRange(parseLocalHeader(fixed, headerOffset), 0)?.start ?? null;
  if (start === null)
    throw memberError('corrupt_file', 'no local header where the central directory says the member starts');
  return start;
}

/** Inflates a whole member; never grows past its declared size. */
function inflate(compressed: Buffer, size: number): Buffer {
  let out: Buffer;
  try {
    out = inflateCapped(compressed, size);
  } catch (error) {
    if (error instanceof RangeError) throw memberError('archive_limit', 'the member inflates past its declared size');
    throw memberError('corrupt_file', `the member's compressed data is damaged: ${describeReadError(error)}`);
  }
  if (out.length !== size)
    throw memberError('corrupt_file', `the member inflates to ${out.length} bytes, not the ${size} declared`);
  return out;
}

/** A member whose bytes do not give the CRC-32 its headers declare is damaged. */
function checkCrc(sum: number, crc: number): void {
  if (sum >>> 0 !== crc >>> 0)
    throw memberError('corrupt_file', 'the member does not match its CRC-32: the archive is damaged');
}

type Extract = (bytes: ByteSource) => Promise<Extraction>;

/** Extraction errors are answers for these bytes (cached); only a failed read may pass. */
async function extractOrFail(extract: Extract, bytes: ByteSource): Promise<Extraction> {
  try {
    return await extract(bytes);
  } catch (error) {
    if (error instanceof CamrollError) throw error;
    throw memberError('internal_error', describeReadError(error));
  }
}

async function fromBuffer(
  task: MemberTask,
  data: Buffer,
  headBytes: number,
  extract: Extract,
  crc: number | null,
): Promise<FileResult> {
  if (crc !== null) checkCrc(zlib.crc32(data), crc);
  const extraction = await extractOrFail(extract, {
    size: data.length,
    head: data.subarray(0, Math.min(data.length, headBytes)),
    read: async (offset, length) => data.subarray(offset, Math.min(offset + length, data.length)),
  });
  const id = `sha256:${createHash('sha256').update(data).digest('hex')}`;
  return done(task.absPath, data.length, id, extraction);
}

interface Ends {
  head: Uint8Array;
  tail: Uint8Array;
  size: number;
  id: string;
}

/**
 * A large tar member the main thread hashed as it passed, of which only its ends are here.
 * A reader asking for bytes between them gets none, and the member an archive_limit line
 * (never metadata read from wrong bytes, nor metadata missing what those bytes held).
 */
async function fromEnds(task: MemberTask, member: Ends, headBytes: number, extract: Extract): Promise<FileResult> {
  const head = asBuffer(member.head);
  const tail = asBuffer(member.tail);
  const tailStart = member.size - tail.length;
  let refused: number | null = null;
  let extraction: Extraction | null = null;
  let problem: unknown = null;
  try {
    extraction = await extractOrFail(extract, {
      size: member.size,
      head: head.subarray(0, Math.min(headBytes, head.length)),
      read: async (offset, length) => {
        const end = Math.min(offset + length, member.size);
        if (end <= head.length) return head.subarray(offset, end);
        if (offset >= tailStart) return tail.subarray(offset - tailStart, end - tailStart);
        refused = offset;
        throw new Error(`byte ${offset} is not kept`);
      },
    });
  } catch (error) {
    problem = error;
  }
  if (refused !== null)
    throw memberError(
      'archive_limit',
      `the metadata of this ${member.size}-byte member lies at byte ${refused}, outside the first ` +
        `${head.length} and last ${tail.length} bytes camroll keeps of a .tar member over ` +
        `${ARCHIVE_LIMITS.inMemoryBytes} bytes; extract it from the archive and scan the file, or use a zip export`,
    );
  if (extraction === null) throw problem;
  return done(task.absPath, member.size, member.id, extraction);
}

/** A member stored as plain bytes in the zip file: read once, as read-file.ts reads a file. */
async function fromFile(
  task: MemberTask,
  fd: number,
  start: number,
  size: number,
  chunk: Buffer,
  headBytes: number,
  extract: Extract,
  crc: number,
): Promise<FileResult> {
  const first = readAt(fd, chunk.subarray(0, Math.min(chunk.length, size)), start);
  if (first.length < Math.min(chunk.length, size))
    throw memberError('truncated_archive', 'the archive ends inside this member');
  const extraction = await extractOrFail(extract, {
    size,
    head: first.subarray(0, Math.min(headBytes, first.length)),
    read: async (offset, length) => {
      const end = Math.min(offset + length, size);
      if (end <= first.length) return first.subarray(offset, end);
      return readAt(fd, Buffer.allocUnsafe(Math.max(end - offset, 0)), start + offset);
    },
  });
  const hash = createHash('sha256').update(first);
  let sum = zlib.crc32(first);
  for (let position = first.length; position < size; ) {
    const read = fs.readSync(fd, chunk, 0, Math.min(chunk.length, size - position), start + position);
    if (read === 0) throw memberError('truncated_archive', 'the archive ends inside this member');
    const part = chunk.subarray(0, read);
    hash.update(part);
    sum = zlib.crc32(part, sum);
    position += read;
  }
  checkCrc(sum, crc);
  return done(task.absPath, size, `sha256:${hash.digest('hex')}`, extraction);
}

interface Deflated {
  fd: number;
  start: number;
  compressedSize: number;
  size: number;
}

/**
 * A large deflated member, streamed: its head is held for the readers, the rest goes to the
 * hash as it is inflated. A reader asking past the head (a video's index at its end) gets
 * the range from a second inflation that stops there: slow, rare, and memory stays flat.
 */
async function fromStream(
  task: MemberTask,
  member: Deflated,
  headBytes: number,
  extract: Extract,
  crc: number,
): Promise<FileResult> {
  const hash = createHash('sha256');
  let sum = 0;
  let total = 0;
  const head: Buffer[] = [];
  let headLength = 0;
  let extraction: Extraction;
  // Pulled by hand: leaving a for-await after the head would end the stream.
  const stream = inflatedChunks(member);
  const take = (part: Buffer): void => {
    hash.update(part);
    sum = zlib.crc32(part, sum);
    total += part.length;
  };
  try {
    while (headLength < headBytes) {
      const next = await stream.next();
      if (next.done) break;
      take(next.value);
      head.push(next.value);
      headLength += next.value.length;
    }
    const first = Buffer.concat(head);
    extraction = await extractOrFail(extract, {
      size: member.size,
      head: first.subarray(0, Math.min(headBytes, first.length)),
      read: async (offset, length) =>
        offset + length <= first.length
          ? first.subarray(offset, offset + length)
          : inflatedRange(member, offset, length),
    });
    for (let next = await stream.next(); !next.done; next = await stream.next()) take(next.value);
  } finally {
    await stream.return(undefined);
  }
  if (total !== member.size)
    throw memberError('corrupt_file', `the member inflates to ${total} bytes, not the ${member.size} declared`);
  checkCrc(sum, crc);
  return done(task.absPath, total, `sha256:${hash.digest('hex')}`, extraction);
}

/** The member's inflated bytes in chunks; more than the declared size is an error, never memory. */
async function* inflatedChunks(member: Deflated): AsyncGenerator<Buffer> {
  const inflater = zlib.createInflateRaw();
  // Fed by positional reads of the caller's descriptor (a read stream would close it).
  const feed = async (): Promise<void> => {
    for (let position = 0; position < member.compressedSize && !inflater.destroyed; ) {
      const buffer = Buffer.allocUnsafe(Math.min(1024 * 1024, member.compressedSize - position));
      const read = await new Promise<number>((resolve, reject) =>
        fs.read(member.fd, buffer, 0, buffer.length, member.start + position, (error, bytes) =>
          error ? reject(error) : resolve(bytes),
        ),
      );
      if (read === 0) throw memberError('truncated_archive', 'the archive ends inside this member');
      position += read;
      if (!inflater.write(buffer.subarray(0, read)))
        await Promise.race([once(inflater, 'drain'), once(inflater, 'close')]);
    }
    inflater.end();
  };
  feed().catch((error: unknown) => inflater.destroy(error as Error));
  let total = 0;
  try {
    for await (const part of inflater as AsyncIterable<Buffer>) {
      total += part.length;
      if (total > member.size) throw memberError('archive_limit', 'the member inflates past its declared size');
      yield part;
    }
  } catch (error) {
    if (error instanceof ScanError) throw error;
    throw memberError('corrupt_file', `the member's compressed data is damaged: ${describeReadError(error)}`);
  } finally {
    inflater.destroy();
  }
}

/** Bytes [offset, offset + length) of a deflated member, inflated again from its start. */
async function inflatedRange(member: Deflated, offset: number, length: number): Promise<Uint8Array> {
  const end = Math.min(offset + length, member.size);
  const out = Buffer.alloc(Math.max(end - offset, 0));
  let position = 0;
  for await (const part of inflatedChunks(member)) {
    const from = Math.max(offset - position, 0);
    const to = Math.min(end - position, part.length);
    if (to > from) part.copy(out, position + from - offset, from, to);
    position += part.length;
    if (position >= end) break;
  }
  return out;
}

function readExactly(fd: number, buffer: Buffer, position: number): Buffer {
  const read = readAt(fd, buffer, position);
  if (read.length < buffer.length) throw memberError('truncated_archive', 'the archive ends inside this member');
  return read;
}

/** A member's media line: the wire member order is read-file's. */
function done(absPath: string, size: number, id: string, extraction: Extraction): FileResult {
  return {
    absPath,
    size,
    media: withId(id, extraction.media),
    source: extraction.source,
    error: null,
    cacheable: true,
  };
}
