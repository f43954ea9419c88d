import { watchExamined } from './examined.js';
import type { JournalReader } from './journal-reader.js';
import { runPipeline, type JournalPort, type PipelineEvent, type SyncInput } from './pipeline.js';
import { predictRejection } from './predict.js';
import { decideOutcome, type SyncCounts, type SyncOutcome, type SyncTally } from './summary.js';

/** What a real run would send, from the journal (a dry run that found one). */
export interface SyncPlan {
  new: number;
  changed: number;
  pending: number;
  already_answered: number;
}

/** The result of `--dry-run`: predicted outcomes, no write anywhere. */
export interface DryRunResult extends SyncCounts {
  dry_run: true;
  outcome: SyncOutcome;
  /** Present when the user's journal was read: what a real run would send, and skip. */
  plan?: SyncPlan;
  /** Present when a real run would not call sync-complete after this pass: why (as its `not_examined`). */
  not_examined?: string;
}

const NO_JOURNAL: JournalPort = {
  answerFor: () => 'none',
  beginBatch: () => 0,
  completeBatch: () => undefined,
  failBatch: () => undefined,
  abandonBatch: () => undefined,
};

/**
 * `--dry-run`: the same pipeline with rejection predicted locally and no journal (which
 * is keyed by the service's partner id, unknown without a call); counts describe a full pass.
 */
export interface DryRunOptions {
  /** The scanner's stream over the roots. */
  scan: (signal: AbortSignal) => AsyncIterable<readonly SyncInput[]>;
  batchSize: number;
  signal: AbortSignal;
  onEvent?: (event: PipelineEvent) => void;
  /** Counted into, so the caller can show live progress. */
  summary?: SyncTally;
  full: boolean;
  /** The user's journal, read-only, when one was found: what it answered is skipped. */
  journal?: JournalReader | null;
  /** `--allow-empty` and `--allow-missing-parts`, for what a real run would decide. */
  allowEmpty?: boolean;
  allowMissingParts?: boolean;
}

export async function runDrySync(options: DryRunOptions): Promise<DryRunResult> {
  const reader = options.journal ?? null;
  const plan: SyncPlan = { new: 0, changed: 0, pending: 0, already_answered: 0 };
  // With the user's journal, items it answered are skipped as a real run would skip them. The
  // pipeline may ask about several copies of one id before it decides, so the plan counts what
  // it decided: what it sends (each batch it begins, with the fingerprints it already has) and
  // what it skipped as answered (its summary).
  const journal: JournalPort =
    reader === null
      ? NO_JOURNAL
      : {
          ...NO_JOURNAL,
          answerFor: (item) => {
            const verdict = reader.plan(item.id, item.fingerprint);
            return verdict === 'answered' ? 'same' : verdict === 'changed' ? 'other' : 'none';
          },
          beginBatch: (_passId, items) => {
            for (const item of items) {
              const verdict = reader.plan(item.id, item.fingerprint);
              if (verdict !== 'answered') plan[verdict] += 1;
            }
            return 0;
          },
        };
  const examined = watchExamined();
  const { summary, interrupted } = await runPipeline({
    input: options.scan(options.signal),
    journal,
    passId: 0,
    send: async (media) => {
      const rejected = media.flatMap((m) => {
        const reason = predictRejection(m);
        return reason ? [{ id: m.id, reason }] : [];
      });
      const rejectedIds = new Set(rejected.map((r) => r.id));
      const accepted = media.filter((m) => !rejectedIds.has(m.id));
      return {
        accepted: accepted.length,
        matched: 0,
        rejected,
        matches: accepted.map((m) => ({ media_id: m.id, matched: false, event_id: null, venue_id: null })),
        events: [],
        last_sync_at: new Date(0).toISOString(),
      };
    },
    batchSize: options.batchSize,
    concurrency: 1,
    full: reader === null || options.full === true,
    signal: options.signal,
    onEvent: (event) => {
      examined.onEvent(event);
      options.onEvent?.(event);
    },
    summary: options.summary,
  });
  plan.already_answered = summary.counts.skipped_already_sent;
  const outcome = decideOutcome(summary.counts, interrupted);
  const notExamined = outcome === 'ok' ? examined.why(summary.counts.files, options) : null;
  return {
    dry_run: true,
    outcome,
    ...summary.counts,
    ...(reader !== null && options.full !== true ? { plan } : {}),
    ...(notExamined === null ? {} : { not_examined: notExamined }),
  };
}
