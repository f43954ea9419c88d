import * as fsp from 'node:fs/promises';
import * as zlib from 'node:zlib';
import yauzl from 'yauzl';
import { ArchiveError } from '../../errors.js';
import { LOCAL_HEADER, LOCAL_HEADER_BYTES, memberDataRange, parseLocalHeader } from './local-header.js';

/** One member as the central directory (or, for a cut download, its local header) describes it. */
export interface ZipEntry {
  /**
   * Decoded name (UTF-8 when flagged or given in a Unicode path field, CP437 otherwise); backslashes become `/`. Never
   * normalised.
   */
  name: string;
  size: number;
  compressedSize: number;
  method: number;
  crc32: number;
  headerOffset: number;
  encrypted: boolean;
  /** A folder entry (a name ending in `/`). */
  folder: boolean;
}

/** The end of a download that never arrived: raised by recovery where the members stop. */
export function isCutArchive(error: unknown): error is ArchiveError {
  return error instanceof ArchiveError && error.code === 'truncated_archive';
}

const cut = (member: string | null, message: string): ArchiveError =>
  new ArchiveError('truncated_archive', member, message);

/**
 * The members of a zip from its central directory (yauzl: zip64, Unicode path fields).
 * Names are decoded but not validated: `..`, absolute names and NUL stay names, since
 * nothing is ever written to disk. Throws when the file has no central directory.
 */
export async function* centralDirectory(absPath: string | Buffer): AsyncGenerator<ZipEntry> {
  const options = { lazyEntries: true, autoClose: false, decodeStrings: false, validateEntrySizes: false };
  const zip =
    typeof absPath === 'string'
      ? await openReadAhead(absPath, options)
      : await yauzl.fromBufferPromise(absPath, options);
  try {
    for await (const entry of zip.eachEntry()) {
      const name = yauzl.getFileNameLowLevel(entry.generalPurposeBitFlag, entry.fileNameRaw, entry.extraFields, false);
      yield {
        name,
        size: entry.uncompressedSize,
        compressedSize: entry.compressedSize,
        method: entry.compressionMethod,
        crc32: entry.crc32,
        headerOffset: entry.relativeOffsetOfLocalHeader,
        encrypted: entry.isEncrypted(),
        folder: name.endsWith('/'),
      };
    }
  } finally {
    zip.close();
  }
}

/** Bytes of the central directory read at once (a directory entry is about 100 bytes). */
const READ_AHEAD = 1024 * 1024;

/**
 * A yauzl reader that serves the central directory from blocks read ahead. yauzl reads each
 * entry with two file reads, each through a chain of streams: 480 thread-pool round trips
 * for a zip of 240 photos, most of a re-scan's time once the members come from the cache.
 * Members' bytes are never read through yauzl (read-member.ts reads them), so only `read`
 * is served; a read stream is refused.
 */
class ReadAheadReader extends yauzl.RandomAccessReader {
  private block = Buffer.alloc(0);
  private blockStart = 0;

  constructor(private readonly handle: fsp.FileHandle) {
    super();
  }

  override read(
    buffer: Buffer,
    offset: number,
    length: number,
    position: number,
    callback: (error: Error | null, bytesRead?: number) => void,
  ): void {
    const from = position - this.blockStart;
    if (from >= 0 && from + length <= this.block.length) {
      this.block.copy(buffer, offset, from, from + length);
      process.nextTick(callback, null, length);
      return;
    }
    const block = Buffer.allocUnsafe(Math.max(length, READ_AHEAD));
    this.handle.read(block, 0, block.length, position).then(
      ({ bytesRead }) => {
        this.block = block.subarray(0, bytesRead);
        this.blockStart = position;
        const served = Math.min(length, bytesRead);
        block.copy(buffer, offset, 0, served);
        callback(null, served);
      },
      (error: Error) => callback(error),
    );
  }

  override _readStreamForRange(): never {
    throw new Error('members are read by read-member.ts, not through the zip listing');
  }

  override close(callback: (error: Error | null) => void): void {
    this.handle.close().then(
      () => callback(null),
      (error: Error) => callback(error),
    );
  }
}

/** yauzl over a file through ReadAheadReader. */
async function openReadAhead(absPath: string, options: yauzl.Options): Promise<yauzl.ZipFile> {
  const handle = await fsp.open(absPath, 'r');
  try {
    const { size } = await handle.stat();
    return await yauzl.fromRandomAccessReaderPromise(new ReadAheadReader(handle), size, options);
  } catch (error) {
    await handle.close();
    throw error;
  }
}

/** Whether yauzl's failure means the central directory is missing (a cut download), not an I/O error. */
export function isMissingDirectory(error: unknown): boolean {
  return (
    error instanceof Error &&
    /end of central directory record signature not found|central directory/i.test(error.message)
  );
}

const CENTRAL_HEADER = 0x02014b50;
const DESCRIPTOR = 0x08074b50;
const CHUNK = 1024 * 1024;

/**
 * The members of a zip without its central directory, found by walking the local headers
 * from the start (what no zip library does): every member whose data lies whole in the
 * file is listed; a member with a data descriptor is inflated to find where it ends. The
 * walk ends at the central directory (the zip was whole after all) or throws a cut ArchiveError
 * where the file stops, naming the member it stops in.
 */
export async function* localHeaders(absPath: string): AsyncGenerator<ZipEntry> {
  const handle = await fsp.open(absPath, 'r');
  try {
    const fileSize = (await handle.stat()).size;
    const header = Buffer.alloc(LOCAL_HEADER_BYTES);
    if (fileSize === 0) throw cut(null, 'the archive is empty: a download that never started');
    for (let offset = 0; ; ) {
      if (offset + 4 > fileSize) throw cut(null, 'the download stops between two members (no central directory)');
      const { bytesRead } = await handle.read(header, 0, header.length, offset);
      const signature = bytesRead >= 4 ? header.readUInt32LE(0) : 0;
      if (signature === CENTRAL_HEADER) return;
      const local = parseLocalHeader(header.subarray(0, bytesRead), offset);
      if (local === null) {
        if (signature === LOCAL_HEADER) throw cut(null, 'the download stops inside a member header');
        if (offset === 0)
          throw new ArchiveError(
            'unsupported_format',
            null,
            'the file is not a zip archive (no member header at its start)',
          );
        throw cut(null, `no member header at byte ${offset}: the archive is damaged or cut`);
      }
      const { flags, method, nameLength, dataStart } = local;
      let { crc32, compressedSize, size } = local;
      const rest = Buffer.alloc(dataStart - offset - LOCAL_HEADER_BYTES);
      if ((await handle.read(rest, 0, rest.length, offset + LOCAL_HEADER_BYTES)).bytesRead < rest.length) {
        throw cut(null, 'the download stops inside a member header');
      }
      const extraFields = safeExtraFields(rest.subarray(nameLength));
      const name = yauzl.getFileNameLowLevel(flags, rest.subarray(0, nameLength), extraFields, false);
      const zip64 = extraFields.find((field) => field.id === 0x0001);
      if (zip64 && size === 0xffffffff && compressedSize === 0xffffffff && zip64.data.length >= 16) {
        size = Number(zip64.data.readBigUInt64LE(0));
        compressedSize = Number(zip64.data.readBigUInt64LE(8));
      }
      const encrypted = (flags & 1) !== 0;
      let dataEnd: number;
      if ((flags & 8) !== 0 && !encrypted) {
        // Sizes come after the data: find its end, then read the descriptor.
        const found =
          method === 8 ? await deflateEnd(handle, dataStart, fileSize) : await storedEnd(handle, dataStart, fileSize);
        if (found === null) throw cut(name, 'the download stops inside this member');
        dataEnd = found.end;
        const descriptor = await readDescriptor(handle, dataEnd, zip64 !== undefined, fileSize);
        if (descriptor === null) throw cut(name, 'the download stops inside this member');
        crc32 = descriptor.crc32;
        compressedSize = dataEnd - dataStart;
        size = found.size;
        yield {
          name,
          size,
          compressedSize,
          method,
          crc32,
          headerOffset: offset,
          encrypted,
          folder: name.endsWith('/'),
        };
        offset = descriptor.next;
        continue;
      }
      dataEnd = memberDataRange(local, compressedSize)!.end;
      if (dataEnd > fileSize) throw cut(name, 'the download stops inside this member');
      yield { name, size, compressedSize, method, crc32, headerOffset: offset, encrypted, folder: name.endsWith('/') };
      offset = dataEnd;
    }
  } finally {
    await handle.close();
  }
}

function safeExtraFields(raw: Buffer): yauzl.ExtraField[] {
  try {
    return yauzl.parseExtraFields(raw);
  } catch {
    return [];
  }
}

/** Where a deflate stream starting at `start` ends, and how much it inflates to; null when the file stops first. */
async function deflateEnd(
  handle: fsp.FileHandle,
  start: number,
  fileSize: number,
): Promise<{ end: number; size: number } | null> {
  const inflater = zlib.createInflateRaw();
  let size = 0;
  inflater.on('data', (part: Buffer) => (size += part.length));
  const ended = new Promise<boolean>((resolve) => {
    inflater.once('end', () => resolve(true));
    inflater.once('error', () => resolve(false));
  });
  const buffer = Buffer.alloc(CHUNK);
  let ok: boolean | null = null;
  void ended.then((value) => (ok = value));
  for (let position = start; position < fileSize && ok === null; ) {
    const { bytesRead } = await handle.read(buffer, 0, Math.min(CHUNK, fileSize - position), position);
    if (bytesRead === 0) break;
    position += bytesRead;
    const part = Buffer.from(buffer.subarray(0, bytesRead));
    if (!inflater.write(part)) await new Promise((resolve) => inflater.once('drain', resolve));
  }
  // Past the end of the file: what is left is a cut stream (end() then errors or ends).
  inflater.end();
  const whole = await ended;
  if (!whole) return null;
  return { end: start + inflater.bytesWritten, size };
}

/** A stored member with a data descriptor: the first descriptor whose size matches its distance. */
async function storedEnd(
  handle: fsp.FileHandle,
  start: number,
  fileSize: number,
): Promise<{ end: number; size: number } | null> {
  const buffer = Buffer.alloc(CHUNK + 16);
  for (let position = start; position < fileSize; position += CHUNK) {
    const { bytesRead } = await handle.read(buffer, 0, Math.min(buffer.length, fileSize - position), position);
    for (let i = 0; i + 16 <= bytesRead; i++) {
      if (buffer.readUInt32LE(i) !== DESCRIPTOR) continue;
      const end = position + i;
      if (buffer.readUInt32LE(i + 8) === end - start) return { end, size: end - start };
    }
  }
  return null;
}

/** The data descriptor at `at` (its signature is optional; zip64 sizes are 8 bytes). */
async function readDescriptor(
  handle: fsp.FileHandle,
  at: number,
  zip64: boolean,
  fileSize: number,
): Promise<{ crc32: number; next: number } | null> {
  const buffer = Buffer.alloc(24);
  const { bytesRead } = await handle.read(buffer, 0, 24, at);
  const signed = bytesRead >= 4 && buffer.readUInt32LE(0) === DESCRIPTOR;
  const base = signed ? 4 : 0;
  const length = base + 4 + (zip64 ? 16 : 8);
  if (at + length > fileSize || bytesRead < length) return null;
  return { crc32: buffer.readUInt32LE(base), next: at + length };
}
