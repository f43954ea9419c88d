import { ScanError } from '../../errors.js';

/**
 * Stable codes for a file that could not be read or parsed. A file that parses but carries
 * no metadata is not an error: it is media with nulls.
 */
export const FILE_ERROR_CODES = {
  /** The content is not an image or video format camroll can read (whatever the extension). */
  unsupported_format: 'unsupported_format',
  /** The format was recognised but its structure is broken. */
  corrupt_file: 'corrupt_file',
  /** The structure points past the end of the file (an interrupted copy or download). */
  truncated_file: 'truncated_file',
  /** The file has no bytes at all. */
  empty_file: 'empty_file',
  /** The operating system refused or failed a read (may pass on its own: never cached). */
  read_error: 'read_error',
  /** A defect in camroll's readers met on this file (cached like any answer for the same bytes). */
  internal_error: 'internal_error',
} as const;

export type FileErrorCode = keyof typeof FILE_ERROR_CODES;

/** Builds the ScanError for a file problem with one of the stable codes. */
export function fileError(code: FileErrorCode, path: string, message: string, cause?: unknown): ScanError {
  return new ScanError(code, path, message, cause === undefined ? {} : { cause });
}

/** A structural problem found while parsing bytes, before the path is known. */
export class ParseProblem extends Error {
  readonly code: FileErrorCode;

  constructor(code: FileErrorCode, message: string) {
    super(message);
    this.name = 'ParseProblem';
    this.code = code;
  }
}

/**
 * The ScanError for anything a reader threw: its own ParseProblem keeps its code; a
 * RangeError (a DataView or typed array sent past its end by inconsistent sizes) is the
 * file's structure, `corrupt_file`; anything else is a defect of camroll, `internal_error`.
 * Both are answers for these bytes, so the cache keeps them; only `read_error` is not.
 */
export function asFileError(error: unknown, path: string): ScanError {
  if (error instanceof ScanError) return error;
  if (error instanceof ParseProblem) return fileError(error.code, path, error.message, error);
  const message = error instanceof Error ? error.message : String(error);
  if (error instanceof RangeError) return fileError('corrupt_file', path, `inconsistent structure: ${message}`, error);
  return fileError('internal_error', path, message, error);
}
