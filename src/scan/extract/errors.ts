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
  /** The operating system refused or failed a read. */
  read_error: 'read_error',
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
