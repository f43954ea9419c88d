import type { IngestResponse, RejectionReason } from '../contract/index.js';
import { isUnreadError } from '../rules/unread.js';
import { countLeftOut, type LeftOutCounts, type RecordOrigin } from '../scan/index.js';

/** Counts of one sync run; the `--json` summary carries them as they are. */
export interface SyncCounts {
  /** Files the scan found (readable or not). */
  files: number;
  /** Files with metadata to send. */
  media: number;
  /** Files with no metadata to send: `unreadable` + `damaged`. */
  scan_errors: number;
  /** Files whose bytes could not be read (permissions, I/O): part of `scan_errors`. */
  unreadable: number;
  /** Files that were read but whose content is damaged or unusable: the rest of `scan_errors`. */
  damaged: number;
  /**
   * Of `media`: files not sent for their origin (`--include`), or collapsed into the other file
   * of a pair, by class with the signals that decided (src/scan/evidence).
   */
  left_out: LeftOutCounts;
  /** Same bytes found again under another name in this run (sent once). */
  duplicates: number;
  /** Already answered by the service in an earlier run with identical metadata (journal). */
  skipped_already_sent: number;
  /** Items in batches the service answered in this run. */
  sent: number;
  accepted: number;
  rejected: Record<RejectionReason, number>;
  matched: number;
  /** Accepted items at a venue whose event is not licensed for redistribution. */
  unlicensed: number;
  batches: number;
  failed_batches: number;
  /**
   * Items of batches sent but not answered (failed after retries, or cut off): journaled as pending, re-sent by the
   * next run.
   */
  pending: number;
}

/** The running SyncCounts of one sync (the scan has its own ScanSummary): each method is one pipeline fact. */
export interface SyncTally {
  readonly counts: SyncCounts;
  /** One file scanned: with metadata, or an error and its code (which tells unreadable from damaged). */
  file(kind: 'media' | 'error', code?: string): void;
  /** A batch handed to the service (its answer, failure or abandonment ends it). */
  batchSending(): void;
  /** Batches handed to the service and not yet answered, failed or abandoned (live: not a count of the run). */
  readonly inFlight: number;
  duplicate(): void;
  /** A file with metadata that is not sent: its origin says why. */
  leftOut(origin: RecordOrigin): void;
  alreadySent(): void;
  batchAnswered(size: number, response: Pick<IngestResponse, 'accepted' | 'matched' | 'rejected' | 'matches'>): void;
  batchFailed(size: number): void;
  batchAbandoned(size: number): void;
}

/** A tally with every count at zero. */
export function createSyncTally(): SyncTally {
  const counts: SyncCounts = {
    files: 0,
    media: 0,
    scan_errors: 0,
    unreadable: 0,
    damaged: 0,
    left_out: {},
    duplicates: 0,
    skipped_already_sent: 0,
    sent: 0,
    accepted: 0,
    rejected: { missing_coordinates: 0, missing_taken_at: 0, invalid: 0 },
    matched: 0,
    unlicensed: 0,
    batches: 0,
    failed_batches: 0,
    pending: 0,
  };
  let inFlight = 0;
  const batchEnded = (): void => {
    inFlight = Math.max(0, inFlight - 1);
  };
  return {
    counts,
    get inFlight() {
      return inFlight;
    },
    file(kind, code) {
      counts.files += 1;
      if (kind === 'media') {
        counts.media += 1;
        return;
      }
      counts.scan_errors += 1;
      if (code !== undefined && isUnreadError(code)) counts.unreadable += 1;
      else counts.damaged += 1;
    },
    batchSending() {
      inFlight += 1;
    },
    duplicate() {
      counts.duplicates += 1;
    },
    leftOut(origin) {
      countLeftOut(counts.left_out, origin);
    },
    alreadySent() {
      counts.skipped_already_sent += 1;
    },
    batchAnswered(size, response) {
      batchEnded();
      counts.batches += 1;
      counts.sent += size;
      counts.accepted += response.accepted;
      counts.matched += response.matched;
      for (const r of response.rejected) counts.rejected[r.reason] += 1;
      for (const m of response.matches) if (!m.matched && m.venue_id != null) counts.unlicensed += 1;
    },
    batchFailed(size) {
      batchEnded();
      counts.failed_batches += 1;
      counts.pending += size;
    },
    batchAbandoned(size) {
      batchEnded();
      counts.pending += size;
    },
  };
}

/**
 * `outage`: stopped because the host went away (decided by the caller, never by the counts).
 * `not_examined`: every batch was answered, but the library was not read whole (nothing
 * found, or folders or files that could not be read), so sync-complete was not called.
 */
export type SyncOutcome = 'ok' | 'failed' | 'interrupted' | 'outage' | 'not_examined';

/**
 * How a run ended: interrupted wins (the user asked to stop), then any batch that failed
 * after retries; scan errors alone do not fail a sync (they are reported).
 */
export function decideOutcome(
  counts: Pick<SyncCounts, 'failed_batches'>,
  interrupted: boolean,
): 'ok' | 'failed' | 'interrupted' {
  if (interrupted) return 'interrupted';
  if (counts.failed_batches > 0) return 'failed';
  return 'ok';
}

/** Total rejected items across reasons. */
export function totalRejected(counts: Pick<SyncCounts, 'rejected'>): number {
  return counts.rejected.missing_coordinates + counts.rejected.missing_taken_at + counts.rejected.invalid;
}
