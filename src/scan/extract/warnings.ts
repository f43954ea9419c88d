/**
 * What a reader skipped to read the rest of a file. A file with warnings still gives its
 * media line: the warnings travel in `source.warnings` so nothing is lost silently.
 */
export const WARNING_CODES = {
  /** One TIFF/EXIF entry had an unknown type or a value outside the data; the others were read. */
  skipped_entry: 'skipped_entry',
  /** A whole IFD (Exif or GPS) or an embedded EXIF block could not be read; the rest was. */
  skipped_ifd: 'skipped_ifd',
  /**
   * A JPEG segment's length was wrong (reading went on at the next marker), or a JPEG, PNG,
   * WebP or ISO-BMFF (HEIC, CR3, MP4, MOV) file was cut or garbled after its metadata was
   * read (what was read is kept; for ISO-BMFF, the file ends inside its last box).
   */
  skipped_segment: 'skipped_segment',
  /** An embedded XMP packet could not be parsed. */
  skipped_xmp: 'skipped_xmp',
  /**
   * Metadata behind a header that is not the standard one was read all the same (a JPEG
   * APP1 XMP segment starting `XMP\0://ns.adobe.com/xap/1.0/`, as exiftool reads it).
   */
  nonstandard_header: 'nonstandard_header',
  /**
   * A sidecar, or one of its members, was left out: a Takeout JSON member of the wrong type
   * (`"latitude": "40.75"`: Takeout writes numbers), or an XMP sidecar past the parser's limits
   * or unreadable as XML. The file's own metadata (and the rest of the sidecar) was read.
   */
  skipped_sidecar: 'skipped_sidecar',
} as const;

export type WarningCode = keyof typeof WARNING_CODES;

/** One skipped part of a file: a stable code and a message naming where. */
export interface ExtractionWarning {
  code: WarningCode;
  message: string;
}

/** Builds an ExtractionWarning. */
export function warning(code: WarningCode, message: string): ExtractionWarning {
  return { code, message };
}
