import { missingForMatching, type MissingForMatching } from '../rules/rejection.js';
import { isUnreadError } from '../rules/unread.js';
import type { ScanEvent, ScannedMedia } from './types.js';
import { createIdSet } from './id-set.js';
import { copyLeftOut, countLeftOut, type LeftOutCounts } from './evidence/tally.js';

/** What a scan found, as printed at the end of `camroll scan` (and reused by sync). */
export interface ScanSummary {
  /** Media files found (one `--jsonl` line each): media + errors. */
  files: number;
  /** Files read into MediaMetadata. */
  media: number;
  photos: number;
  videos: number;
  /** Files that could not be read or parsed, by error code. */
  errors: Record<string, number>;
  /** Of `errors`: files whose bytes could not be read (permissions, I/O). */
  unreadable: number;
  /** Of `errors`: files that were read but are damaged or in a form that cannot be used. */
  damaged: number;
  /** Files and folders left out on purpose, by reason. */
  skipped: Record<string, number>;
  /** Things the walk could not read (folders, files), by code. */
  warnings: Record<string, number>;
  /** Media the service would reject, by the first reason that applies. */
  would_reject: { missing_coordinates: number; missing_taken_at: number };
  /** Files whose content (id) was already seen in this scan, and the number of distinct ids. */
  duplicates: { files: number; distinct_ids: number };
  /** Bytes of the media files found. */
  bytes: number;
  /** Records served from the scan cache without reading the file. */
  cached: number;
  /**
   * Media not sent, by origin class, with the signals that decided (src/scan/evidence): left
   * out by `--include`, or collapsed into the other file of a pair.
   */
  left_out: LeftOutCounts;
}

export type LocalRejection = MissingForMatching;

/**
 * The rejection the service would give this media, or null: the shared order of
 * src/rules/rejection.ts (coordinates first, then the capture time).
 */
export const wouldBeRejected: (
  media: Pick<ScannedMedia, 'latitude' | 'longitude' | 'taken_at'>,
) => LocalRejection | null = missingForMatching;

/** A summary accumulator: feed it every scan event, read `result()` at any time. */
export interface SummaryAccumulator {
  add(event: ScanEvent): void;
  result(): ScanSummary;
}

/** Creates an empty accumulator (pure: no I/O, no clock). */
export function createScanSummary(): SummaryAccumulator {
  const ids = createIdSet();
  const summary: ScanSummary = {
    files: 0,
    media: 0,
    photos: 0,
    videos: 0,
    errors: {},
    unreadable: 0,
    damaged: 0,
    skipped: {},
    warnings: {},
    would_reject: { missing_coordinates: 0, missing_taken_at: 0 },
    duplicates: { files: 0, distinct_ids: 0 },
    bytes: 0,
    cached: 0,
    left_out: {},
  };
  const bump = (counts: Record<string, number>, key: string): void => {
    counts[key] = (counts[key] ?? 0) + 1;
  };
  return {
    add(event) {
      if (event.type === 'skipped') return bump(summary.skipped, event.reason);
      if (event.type === 'warning') return bump(summary.warnings, event.code);
      const { record } = event;
      summary.files += 1;
      summary.bytes += record.size;
      if (record.cached) summary.cached += 1;
      if (record.error || !record.media) {
        const code = record.error?.code ?? 'unknown';
        bump(summary.errors, code);
        if (isUnreadError(code)) summary.unreadable += 1;
        else summary.damaged += 1;
        return;
      }
      summary.media += 1;
      if (record.media.media_type === 'video') summary.videos += 1;
      else summary.photos += 1;
      if (!ids.add(record.media.id)) summary.duplicates.files += 1;
      if (record.origin?.left_out) return countLeftOut(summary.left_out, record.origin); // not sent: never rejected
      const rejection = wouldBeRejected(record.media);
      if (rejection) summary.would_reject[rejection] += 1;
    },
    result() {
      return {
        ...summary,
        errors: { ...summary.errors },
        skipped: { ...summary.skipped },
        warnings: { ...summary.warnings },
        would_reject: { ...summary.would_reject },
        duplicates: { files: summary.duplicates.files, distinct_ids: ids.size },
        left_out: copyLeftOut(summary.left_out),
      };
    },
  };
}

/**
 * Warnings that are no failure of the scan: it read every file anyway (the cache was
 * unavailable), a sidecar's media is not among them, or parts of an export were not given
 * (named; sync refuses sync-complete for it). An unusable Photo Details CSV is a failure here,
 * as a damaged file is, though not an unread part of the library for sync (rules/unread.ts).
 */
const NO_FAILURE_WARNINGS: ReadonlySet<string> = new Set([
  'cache_unavailable',
  'sidecar_without_media',
  'missing_parts',
]);

/** Number of files that failed to read or parse, plus folders/files the walk could not read. */
export function failureCount(summary: ScanSummary): number {
  const sum = (counts: Record<string, number>): number => Object.values(counts).reduce((a, b) => a + b, 0);
  const unread = Object.entries(summary.warnings).filter(([code]) => !NO_FAILURE_WARNINGS.has(code));
  return sum(summary.errors) + sum(Object.fromEntries(unread));
}
