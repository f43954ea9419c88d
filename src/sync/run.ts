import { plural } from '../util/plural.js';
import type { ApiClient } from '../client/index.js';
import type { Event, IngestResponse, MediaMetadata, Stats } from '../contract/index.js';
import { UserId } from '../contract/index.js';
import { ApiError, UsageError } from '../errors.js';
import { watchExamined } from './examined.js';
import { openJournal, type PassKind } from './journal.js';
import { runPipeline, type PipelineEvent, type SyncInput } from './pipeline.js';
import { decideOutcome, type SyncTally, type SyncCounts, type SyncOutcome } from './summary.js';

/** Who the sync is for: an existing user id, or an e-mail to create or find. */
export type SyncIdentity = { userId: string } | { email: string };

/** The API calls a sync makes (the real client satisfies it). */
export type SyncClient = Pick<ApiClient, 'health' | 'createUser' | 'ingest' | 'syncComplete' | 'allEvents' | 'stats'>;

/** The users known on this machine, by (target, e-mail), so POST /users is not repeated for a known user. */
export interface KnownUsers {
  recall(target: string, email: string): string | null | undefined;
  /**
   * `existing` is the service's answer: false when POST /users created a new profile;
   * `environment` is the key's (from /health), so a notice can say where the profile lives.
   */
  remember(target: string, email: string, userId: string, existing: boolean, environment: string): void;
}

export interface SyncTarget {
  kind: 'remote' | 'embedded';
  baseUrl: string;
  profile?: string | null;
  /** Stable name of where the data lives (a base URL, or `embedded:<db file>`): keys journals and users. */
  identity: string;
}

export interface SyncRunOptions {
  identity: SyncIdentity;
  /** The scanner's stream over the roots, created once the run knows it will proceed. */
  scan: (signal: AbortSignal) => AsyncIterable<readonly SyncInput[]>;
  batchSize: number;
  concurrency: number;
  full: boolean;
  signal: AbortSignal;
  /** Journals folder (`ctx.paths.data/journals`). */
  journalDir: string;
  connection: { client: SyncClient; target: SyncTarget; users: KnownUsers };
  /** Read the user's events and stats at the end (default true; `--no-events` skips them). */
  readHistory?: boolean;
  /**
   * A library with no media counts as examined (`--allow-empty`); otherwise it is an unmounted drive until shown
   * otherwise.
   */
  allowEmpty?: boolean;
  /**
   * An export whose parts given leave gaps (the scan's `missing_parts` warnings) counts as
   * examined (`--allow-missing-parts`); otherwise the library was not examined whole.
   */
  allowMissingParts?: boolean;
  onEvent?: (event: PipelineEvent) => void;
  /** Counted into, so the caller can show live progress. */
  summary?: SyncTally;
  /** Notices for stderr (resume, stale journal, pass kind). */
  notice?: (line: string) => void;
  /**
   * Called once the pass ended (not when interrupted), with the journal still open and
   * locked: `--watch` sends what changes afterwards through `changes`, then returns.
   */
  afterPass?: (result: SyncResult, changes: ChangeSender) => Promise<void>;
}

/** Where a pass reports to: the live accumulator and the pipeline's events. */
export interface PassIo {
  onEvent?: (event: PipelineEvent) => void;
  summary?: SyncTally;
}

/** Sends changed files after the first pass (`--watch`). */
export interface ChangeSender {
  /**
   * One batch of changes as a pass of its own (kind `watch`): what the journal answered is
   * skipped, answers are journaled, and sync-complete is not called (no library was scanned).
   */
  send(
    scan: SyncRunOptions['scan'],
    io: PassIo,
  ): Promise<{ counts: SyncCounts; interrupted: boolean; unreadable: number }>;
}

/** The result of a sync, as `--json` prints it. */
export interface SyncResult extends SyncCounts {
  user_id: string;
  /** Whether this run created the user (POST /users answered 201): a new profile, said in the summary. */
  user_created: boolean;
  target: { kind: 'remote' | 'embedded'; base_url: string };
  pass: PassKind;
  dry_run: false;
  /** Whether sync-complete was called (the pass sent everything). */
  sync_complete: boolean;
  /** Items of batches left pending by an earlier interrupted run, found at start. */
  resumed_pending: number;
  outcome: SyncOutcome;
  /** With outcome `not_examined`: why sync-complete was not called. */
  not_examined?: string;
  events: Event[];
  stats: Stats | null;
}

/** Finds the user: `--user` as given, `--email` from memory or POST /users (remembered). */
export async function resolveUser(
  identity: SyncIdentity,
  client: SyncClient,
  users: KnownUsers,
  where: { baseUrl: string; environment: string },
  signal: AbortSignal,
): Promise<{ userId: string; stats: Stats; created: boolean }> {
  if ('userId' in identity) {
    if (!UserId.safeParse(identity.userId).success) throw new UsageError(`--user must be a UUID: ${identity.userId}`);
    return { userId: identity.userId, stats: await client.stats(identity.userId, { signal }), created: false };
  }
  const remembered = users.recall(where.baseUrl, identity.email);
  if (remembered) {
    try {
      return { userId: remembered, stats: await client.stats(remembered, { signal }), created: false };
    } catch (error) {
      // A remembered id the service no longer knows (its database was reset): create again.
      if (!(error instanceof ApiError && error.code === 'user_not_found')) throw error;
    }
  }
  const created = await client.createUser({ email: identity.email }, { signal });
  users.remember(where.baseUrl, identity.email, created.user_id, created.existing, where.environment);
  return {
    userId: created.user_id,
    stats: await client.stats(created.user_id, { signal }),
    created: !created.existing,
  };
}

/**
 * One sync: health (partner id) -> user -> stats (has_synced picks full or incremental)
 * -> journal -> pipeline -> sync-complete when every batch was answered -> events and stats.
 */
export async function runSync(options: SyncRunOptions): Promise<SyncResult> {
  const { client, target, users } = options.connection;
  const notice = options.notice ?? ((): void => undefined);
  const signal = options.signal;
  const health = await client.health({ signal });
  const {
    userId,
    stats: before,
    created,
  } = await resolveUser(
    options.identity,
    client,
    users,
    { baseUrl: target.identity, environment: health.environment },
    signal,
  );
  const journal = openJournal({
    dir: options.journalDir,
    key: { baseUrl: target.identity, partnerId: health.partner_id, userId },
  });
  try {
    // counts() scans the whole outcome table: read it once (it is zero after a clear).
    const counts = journal.counts();
    let answered = counts.accepted + counts.rejected;
    let resumedPending = journal.recovery.pendingItems;
    let cleared = false;
    if (before.last_sync_at === null && counts.accepted > 0) {
      // The service has never received anything for this user, so the journal cannot be right.
      notice('sync journal does not match the service (it has received nothing for this user): starting over');
      journal.clear();
      answered = 0;
      resumedPending = 0;
      cleared = true;
    }
    const pass: PassKind = options.full || !before.has_synced ? 'full' : 'incremental';
    if (!cleared && (journal.recovery.interruptedPasses > 0 || resumedPending > 0)) {
      const answeredFate = options.full ? 'are sent again (--full)' : 'are skipped';
      notice(
        `resuming an interrupted sync: ${plural(answered, 'item')} already answered ${answeredFate}, ` +
          `${plural(resumedPending, 'pending item')} ${resumedPending === 1 ? 'is' : 'are'} sent again`,
      );
    } else if (pass === 'incremental' && answered === 0) {
      notice('no local sync journal for this user on this machine: every item is sent once (re-sending is safe)');
    }
    notice(`${pass} pass for user ${userId}${options.full ? ' (--full: everything is sent again)' : ''}`);

    /** One pass of the pipeline over `scan`, counting what could not be read. */
    const sendPass = async (kind: PassKind, scan: SyncRunOptions['scan'], io: PassIo) => {
      const passId = journal.beginPass(kind);
      const examined = watchExamined();
      const onEvent = (event: PipelineEvent): void => {
        examined.onEvent(event);
        io.onEvent?.(event);
      };
      const ran = await runPipeline({
        input: scan(signal),
        journal,
        passId,
        send: (media: MediaMetadata[], sendSignal: AbortSignal): Promise<IngestResponse> =>
          client.ingest(userId, media, { signal: sendSignal }),
        batchSize: options.batchSize,
        concurrency: options.concurrency,
        full: kind === 'full' && options.full,
        signal,
        onEvent,
        summary: io.summary,
      });
      return { passId, examined, ...ran };
    };
    const { passId, examined, summary, interrupted } = await sendPass(pass, options.scan, options);
    const decided = decideOutcome(summary.counts, interrupted);
    const notExamined = decided !== 'ok' ? null : examined.why(summary.counts.files, options);
    const outcome: SyncOutcome = notExamined === null ? decided : 'not_examined';
    let syncComplete = false;
    if (outcome === 'ok') {
      await client.syncComplete(userId, { signal });
      syncComplete = true;
    }
    journal.finishPass(passId, outcome === 'ok' ? 'complete' : outcome === 'interrupted' ? 'interrupted' : 'failed');
    let events: Event[] = [];
    let stats: Stats | null = null;
    if (outcome !== 'interrupted' && options.readHistory !== false) {
      // Two independent reads: the stats go out while the events are paged, not after them.
      const collect = async (): Promise<Event[]> => {
        const all: Event[] = [];
        for await (const event of client.allEvents(userId, { includeMedia: false, limit: 100, signal }))
          all.push(event);
        return all;
      };
      [events, stats] = await Promise.all([collect(), client.stats(userId, { signal })]);
    }
    const result: SyncResult = {
      user_id: userId,
      user_created: created,
      target: { kind: target.kind, base_url: target.baseUrl },
      pass,
      dry_run: false,
      sync_complete: syncComplete,
      resumed_pending: resumedPending,
      outcome,
      ...(notExamined === null ? {} : { not_examined: notExamined }),
      ...summary.counts,
      events,
      stats,
    };
    if (options.afterPass && outcome !== 'interrupted' && !signal.aborted) {
      // The journal stays open (and locked) while the caller sends what changes after the pass.
      await options.afterPass(result, {
        send: async (scan, io) => {
          const sent = await sendPass('watch', scan, io);
          const status = sent.interrupted
            ? 'interrupted'
            : sent.summary.counts.failed_batches > 0
              ? 'failed'
              : 'complete';
          journal.finishPass(sent.passId, status);
          return { counts: sent.summary.counts, interrupted: sent.interrupted, unreadable: sent.examined.unreadable };
        },
      });
    }
    return result;
  } finally {
    journal.close();
  }
}
