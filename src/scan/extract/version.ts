/**
 * Bump when the output for the same bytes changes: the scan cache keys on it. A module of
 * its own so the scan's main thread can read it without loading the readers.
 */
export const EXTRACTOR_VERSION = 5;
