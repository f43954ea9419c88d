/**
 * The scan's face: what `src/sync` and `src/cli` use of it, and the only module of src/scan
 * they import (test/cli/layering.test.ts holds it). What is exported here statically is
 * light (no thread pool, no extractor, no archive reader); the scan itself is loaded with
 * `loadScanner` when a command runs one.
 */
import type { ScanOptions } from './scan.js';
import type { ScanEvent } from './types.js';

export type { ScanOptions };
export type { ByteProgress } from './progress.js';
export type {
  CoordinatesSource,
  RecordOrigin,
  ScanEvent,
  ScanRecord,
  ScannedMedia,
  TakenAtSource,
} from './types.js';
export {
  DEFAULT_INCLUDED,
  ORIGIN_CLASSES,
  parseInclude,
  type OriginClass,
  type OriginDecision,
} from './evidence/origin.js';
export { createEvidenceMemory, type EvidenceMemory } from './evidence/stage.js';
export {
  COLLAPSED,
  copyLeftOut,
  countLeftOut,
  leadingSignal,
  type LeftOutCount,
  type LeftOutCounts,
} from './evidence/tally.js';
export { resolveScanRoots } from './roots.js';
export { createSidecarTree, type SidecarTree } from './tree.js';
export { archiveKindOf, rootKindOf } from './sources/formats.js';
export { classifyPath, type PathClass } from './classify.js';
export { createExcludeMatcher } from './classify.js';
export { createBatchStat } from './stat-batch.js';
export { asGiven, displayPath, MISSING_PARTS, recordDisplayPath } from './roots.js';
export { createScanSummary, failureCount, wouldBeRejected, type ScanSummary } from './summary.js';
export { startAhead } from './head-start.js';

/**
 * The scan's batches (scan.ts, scanLibraryBatches), the scan loaded on the first pull: a
 * command that only imports this face pays for the thread pool and the extractor when it scans.
 */
export async function* scanLibraryBatches(options: ScanOptions): AsyncGenerator<ScanEvent[]> {
  yield* (await loadScanner()).scanLibraryBatches(options);
}

/** The scan (scan.ts: the thread pool, the cache, the sources), loaded when a command runs one. */
export const loadScanner = (): Promise<typeof import('./scan.js')> => import('./scan.js');

/** The time-zone lookup (its boundary data is large), loaded when a record is explained. */
export const loadTimezone = (): Promise<typeof import('./extract/timezone.js')> => import('./extract/timezone.js');
