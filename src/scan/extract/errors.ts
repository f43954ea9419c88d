import { CLIENT_ERROR_CODES, ScanError, type ScanErrorCode } from '../../errors.js';

/**
 * Stable codes for a file that could not be read or parsed: the `scan` family of the one
 * catalogue (CLIENT_ERROR_CODES in src/errors.ts, which says what each means), by name.
 */
export const FILE_ERROR_CODES = Object.freeze(
  Object.fromEntries(CLIENT_ERROR_CODES.scan.map((code) => [code, code])) as { readonly [C in ScanErrorCode]: C },
);

export type FileErrorCode = ScanErrorCode;

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
