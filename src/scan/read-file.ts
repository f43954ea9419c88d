import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import { CamrollError } from '../errors.js';
import type { extractFile, createSidecarFinder } from './extract/index.js';
import { parseTakeout } from './extract/takeout.js';
import { parseSidecar } from './extract/sidecars.js';
import type { ExtractionWarning } from './extract/warnings.js';
import { parseXmp } from './extract/xmp.js';
import type { ByteSource, Extraction, FileProblem, ScannedMedia, SourceInfo } from './types.js';

/** What reading one file gives: media with its id, or a problem. */
export interface FileResult {
  absPath: string;
  size: number;
  media: ScannedMedia | null;
  source: SourceInfo | null;
  error: FileProblem | null;
  /** false for failures that may pass on their own (a read error): those are not cached. */
  cacheable: boolean;
}

export type ExtractFn = typeof extractFile;
export type SidecarFinder = ReturnType<typeof createSidecarFinder>;

/** The texts of the Takeout JSON and XMP matched to a file by name (null when none). */
export interface SidecarTexts {
  takeout: string | null;
  xmp: string | null;
}

/**
 * A file read with the sidecars the caller matched (a folder beside archives: the run's
 * sidecar tree spans its own folder and the archive parts) instead of its folder's.
 */
export interface FileTask {
  absPath: string;
  sidecars: SidecarTexts;
}

/** A sidecar finder that answers with the given texts, parsed when the extractor asks. */
export function givenSidecars(texts: SidecarTexts): SidecarFinder {
  return {
    load: async () => {
      const warnings: ExtractionWarning[] = [];
      const takeout = texts.takeout === null ? null : parseTakeout(texts.takeout);
      const xmp = texts.xmp === null ? null : parseSidecar('the XMP sidecar', texts.xmp, parseXmp, warnings);
      return warnings.length > 0 ? { takeout, xmp, warnings } : { takeout, xmp };
    },
  };
}

export interface FileReaderOptions {
  extract: ExtractFn;
  sidecars: SidecarFinder;
  /** How much of the file the metadata readers get up front. */
  headBytes: number;
  /** Read size for hashing the rest (default 1 MiB). */
  chunkBytes?: number;
}

const READ_ERROR = 'read_error';

/**
 * Returns a function that reads one file exactly once: open, read the head, give it to the
 * extractor (which may ask for more through the same descriptor), then hash the head and
 * the rest with one reused buffer. Synchronous reads: this runs on a worker thread of its own.
 * A FileTask's sidecars replace the ones found beside the file; all else is the same.
 */
export function createFileReader(options: FileReaderOptions): (item: string | FileTask) => Promise<FileResult> {
  // 1 MiB: few syscalls per file; never smaller than the head it also holds.
  const chunk = Buffer.allocUnsafe(Math.max(options.chunkBytes ?? 1024 * 1024, options.headBytes));
  return async (item) => {
    const absPath = typeof item === 'string' ? item : item.absPath;
    const sidecars = typeof item === 'string' ? options.sidecars : givenSidecars(item.sidecars);
    let fd: number;
    let size = 0;
    try {
      fd = fs.openSync(absPath, 'r');
    } catch (error) {
      return failure(absPath, size, READ_ERROR, describeReadError(error), false);
    }
    try {
      size = fs.fstatSync(fd).size;
      // The first read fills the reused buffer: its start is the extractor's head, all of it
      // goes to the hash. No per-file allocation, one read for files up to 1 MiB.
      const first = readAt(fd, chunk, 0);
      const bytes: ByteSource = {
        size,
        head: first.subarray(0, Math.min(options.headBytes, first.length)),
        // `first` is not overwritten before extraction ends, so ranges inside it are shared.
        read: async (offset, length) =>
          offset + length <= first.length
            ? first.subarray(offset, offset + length)
            : readAt(fd, Buffer.allocUnsafe(length), offset),
      };
      let extraction: Extraction;
      try {
        extraction = await options.extract({ absPath, bytes, sidecars });
      } catch (error) {
        // The extractor throws only ScanErrors; anything else is a defect, an answer for these
        // bytes all the same (cached until the extractor version changes). Only a failed read may
        // pass on its own, so only read_error is not cached.
        if (error instanceof CamrollError)
          return failure(absPath, size, error.code, error.message, error.code !== READ_ERROR);
        return failure(absPath, size, 'internal_error', describeReadError(error), true);
      }
      const hash = createHash('sha256').update(first);
      let position = first.length;
      // readAt stops short only at the end of the file: a short first read means we are done.
      for (let more = first.length === chunk.length; more; ) {
        const read = fs.readSync(fd, chunk, 0, chunk.length, position);
        hash.update(read === chunk.length ? chunk : chunk.subarray(0, read));
        position += read;
        more = read > 0;
      }
      const id = `sha256:${hash.digest('hex')}`;
      return {
        absPath,
        size: position,
        media: withId(id, extraction.media),
        source: extraction.source,
        error: null,
        cacheable: true,
      };
    } catch (error) {
      return failure(absPath, size, READ_ERROR, describeReadError(error), false);
    } finally {
      fs.closeSync(fd);
    }
  };
}

/** Fills `buffer` from `position` (short only at end of file) and returns the filled part. */
export function readAt(fd: number, buffer: Buffer, position: number): Buffer {
  let filled = 0;
  while (filled < buffer.length) {
    const read = fs.readSync(fd, buffer, filled, buffer.length - filled, position + filled);
    if (read === 0) break;
    filled += read;
  }
  return filled === buffer.length ? buffer : buffer.subarray(0, filled);
}

/** The wire member order of MediaMetadata, so `--jsonl` lines read the same everywhere. */
export function withId(id: string, media: Extraction['media']): ScannedMedia {
  return {
    id,
    taken_at: media.taken_at,
    latitude: media.latitude,
    longitude: media.longitude,
    media_type: media.media_type,
    filename: media.filename,
    duration_seconds: media.duration_seconds,
    device_make: media.device_make,
    device_model: media.device_model,
    device_lens_model: media.device_lens_model,
  };
}

/** A file (or archive member) that gave no media: its error line. */
export function failure(absPath: string, size: number, code: string, message: string, cacheable: boolean): FileResult {
  return { absPath, size, media: null, source: null, error: { code, message }, cacheable };
}

/** An error's message, led by its system code when the message does not already say it. */
export function describeReadError(error: unknown): string {
  if (error instanceof Error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code && !error.message.startsWith(code) ? `${code}: ${error.message}` : error.message;
  }
  return String(error);
}
