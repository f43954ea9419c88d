import type { SyncCounts } from '../sync/summary.js';
import type { HistoryReport } from './history.js';
import type { LibraryReport } from './library.js';

export { buildHistory, type HistoryEvent, type HistoryReport, type HistoryVenue } from './history.js';
export {
  createLibraryAggregator,
  type DeviceRow,
  type LibraryAggregator,
  type LibraryReport,
  type MonthRow,
  type PlaceCell,
  type ProblemRow,
} from './library.js';

/** What a sync did with the library (the counts of `sync --json`). */
export type SyncFigures = Pick<
  SyncCounts,
  | 'files'
  | 'media'
  | 'duplicates'
  | 'skipped_already_sent'
  | 'sent'
  | 'accepted'
  | 'rejected'
  | 'matched'
  | 'unlicensed'
  | 'failed_batches'
  | 'pending'
> & { dry_run: boolean; sync_complete: boolean };

/** The whole report: each part null when the command did not see it. */
export interface Report {
  /** What was reported on, in words (`scan of …`, `sync of … for user …`, `user …`). */
  subject: string;
  /** ISO instant the report was made (the caller's clock). */
  generated_at: string;
  library: LibraryReport | null;
  sync: SyncFigures | null;
  history: HistoryReport | null;
  /**
   * Said first when the command did not do its whole job (interrupted, the service gone, a
   * failure before the result): what the figures below are then. Absent when it did.
   */
  notice?: string | null;
}

/** The sync counts a report shows, picked from a sync result. */
export function syncFigures(result: SyncCounts & { dry_run: boolean; sync_complete?: boolean }): SyncFigures {
  return {
    files: result.files,
    media: result.media,
    duplicates: result.duplicates,
    skipped_already_sent: result.skipped_already_sent,
    sent: result.sent,
    accepted: result.accepted,
    rejected: { ...result.rejected },
    matched: result.matched,
    unlicensed: result.unlicensed,
    failed_batches: result.failed_batches,
    pending: result.pending,
    dry_run: result.dry_run,
    sync_complete: result.sync_complete ?? false,
  };
}
