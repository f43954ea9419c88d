import {
  archiveKindOf,
  createEvidenceMemory,
  createSidecarTree,
  displayPath,
  recordDisplayPath,
  scanLibraryBatches,
  startAhead,
  type ByteProgress,
  type ScanEvent,
  type EvidenceMemory,
  type SidecarTree,
} from '../scan/index.js';
import { startFailure, type SyncEnded } from './ending.js';
import { loadDryPass, loadPass } from './lazy.js';
import type { DryRunFinding, DryRunLookups } from './dry-run-journal.js';
import type { FollowEvent, FollowScanOptions, StartedWatch } from './follow.js';
import { createOutageTracker, type AttemptOutcome } from './outage.js';
import type { PipelineEvent, SyncInput } from './pipeline.js';
import type { SyncClient, SyncIdentity, SyncResult, SyncTarget } from './run.js';
import { createSyncTally, type SyncCounts, type SyncTally } from './summary.js';

export type { DryRunResult, SyncPlan } from './dry-run.js';
export type { SyncEnded } from './ending.js';
export type { WatchTotals } from './follow.js';
export type { SyncIdentity, SyncResult } from './run.js';

/**
 * `camroll sync` as one call: the scan (started ahead of the connection), the pass or the
 * dry run, `--watch` after the pass, and the outage stop. Options in, events out as it
 * goes, the result at the end. Writes to no terminal: src/cli renders the events.
 */

/** Live numbers for a progress display. */
export interface SyncProgress {
  counts: SyncCounts;
  /** Items queued for sending so far (grows while the scan runs). */
  queued: number;
  /** Whether the scan has finished (the sent total is final). */
  scanDone: boolean;
  /** Media files listed so far (the walk lists ahead of reading); null before the first folder. */
  total: number | null;
  /** Whether `total` is final (the listing is over). */
  totalFinal: boolean;
  /** Batches handed to the service and not yet answered (never above the concurrency). */
  inFlight: number;
  /** Bytes read of a total known from the start (a run of archives: see ScanOptions.onBytes); null otherwise. */
  bytes: ByteProgress | null;
}

/** What a session reports as it goes. */
export type SyncEvent =
  /** The pass's pipeline (in a dry run too). */
  | PipelineEvent
  | { type: 'listed'; files: number; final: boolean }
  /** Bytes the scan has read, of a total known from the start (archives). */
  | { type: 'read'; bytes: ByteProgress }
  /** A notice of the pass: resuming, a stale journal, the pass kind. */
  | { type: 'status'; message: string }
  /** POST /users created a new profile for `--email`. */
  | { type: 'user_created'; userId: string; email: string; target: SyncTarget; environment: string }
  | DryRunFinding
  | FollowEvent;

/** The service side of a real run, opened once the scan is running. */
export interface OpenedService {
  client: SyncClient;
  target: SyncTarget;
  /** The users remembered on this machine, by (target, e-mail). */
  users: {
    recall(target: string, email: string): string | null | undefined;
    remember(target: string, email: string, userId: string, existing: boolean): void;
  };
  close(): Promise<void>;
}

/** How a session reaches the service: the CLI resolves flags, configuration and the embedded service. */
export interface SyncService extends DryRunLookups {
  /** Connects for a real run; every request attempt goes to `onRequest` (the outage stop reads them). */
  open(onRequest: (attempt: AttemptOutcome) => void): Promise<OpenedService>;
}

export interface SyncSessionOptions {
  /** Resolved roots (`resolveScanRoots`) and the folder paths are shown relative to. */
  roots: string[];
  cwd: string;
  scan: FollowScanOptions;
  /**
   * A real pass for a user (with `--watch` after it: `poll` is `--poll`), or a dry run, which
   * reads the user's journal when it is given a user.
   */
  pass:
    | { dryRun: false; identity: SyncIdentity; watch: { poll: boolean } | null }
    | { dryRun: true; identity: SyncIdentity | null };
  batchSize: number;
  concurrency: number;
  full: boolean;
  /** Read the user's events and stats at the end. */
  readHistory: boolean;
  allowEmpty: boolean;
  /** An export given with parts missing is synced as the whole library (`--allow-missing-parts`). */
  allowMissingParts?: boolean;
  /** Connection failures in a row that stop the sync. */
  maxConnectionFailures: number;
  /** Journals folder (`ctx.paths.data/journals`). */
  journalDir: string;
  signal: AbortSignal;
  service: SyncService;
  onEvent: (event: SyncEvent, progress: SyncProgress) => void;
  /** Every scanned batch of the pass, as read (paths as shown): `--html` pictures the library from it. */
  onScanned?: (events: readonly ScanEvent[]) => void;
  /** Awaited before each batch of scanned files is handed on: a slow `--report` file holds the scan back. */
  pace?: () => Promise<void> | undefined;
  /**
   * With `--watch`: called once the pass ended, and awaited before the watch reports
   * anything (the pass's summary goes first).
   */
  afterPass?: (result: SyncResult) => Promise<void>;
}

/**
 * Runs one sync. Ctrl-C during start-up or the scan, or the host going away before the pass
 * could end, rejects with an InterruptedError or an OutageError; once the pass has ended, its
 * outcome (interrupted included) is in the result.
 */
export async function runSyncSession(options: SyncSessionOptions): Promise<SyncEnded> {
  const summary = createSyncTally();
  const progress: SyncProgress = {
    counts: summary.counts,
    queued: 0,
    scanDone: false,
    total: null,
    totalFinal: false,
    inFlight: 0,
    bytes: null,
  };
  const emit = (event: SyncEvent): void => options.onEvent(event, { ...progress, inFlight: summary.inFlight });
  const onPipeline = (event: PipelineEvent): void => {
    if (event.type === 'queued') progress.queued += event.items;
    emit(event);
  };
  const listed = (files: number, final: boolean): void => {
    progress.total = files;
    progress.totalFinal = final;
    emit({ type: 'listed', files, final });
  };
  const read = (bytes: ByteProgress): void => {
    progress.bytes = bytes;
    emit({ type: 'read', bytes });
  };
  // One sidecar tree for the run's archives and the folders beside them, the watch's scans
  // included: a part read again meets the sidecars of the others. A run of folders has none.
  const tree =
    options.scan.archives || options.roots.some((root) => archiveKindOf(root) !== null)
      ? createSidecarTree()
      : undefined;
  // One pairing memory for the run: a change the watch reads pairs with a still the pass read.
  // A pair names its partner as the pass shows paths, in the watch's batches too (their scans have other roots).
  const evidence = createEvidenceMemory({
    shown: (absPath) => displayPath(absPath, { roots: options.roots, cwd: options.cwd }),
  });
  const scan = (signal: AbortSignal): AsyncIterable<SyncInput[]> =>
    scanRoots(options, signal, { tree, evidence, onListed: listed, onBytes: read }, () => {
      progress.scanDone = true;
    });

  // The host going away stops the sync (journal consistent, summary printed), as does a
  // failure that waiting cannot heal; Ctrl-C stays an interruption.
  const outage = new AbortController();
  let outageReason: string | null = null;
  const tracker = createOutageTracker(options.maxConnectionFailures);
  const observe = (attempt: AttemptOutcome): void => {
    const verdict = tracker.observe(attempt);
    if (verdict.stop && outageReason === null) {
      outageReason = verdict.reason;
      outage.abort();
    }
  };
  const signal = AbortSignal.any([options.signal, outage.signal]);
  const common = { options, signal, summary, onPipeline, emit, scan, tree, evidence };
  try {
    const mode = options.pass;
    // A dry run sends nothing, so nothing feeds the outage stop.
    if (mode.dryRun) return { result: await dryPass(common, mode.identity), watch: null, outageReason: null };
    const { result, watch } = await realPass({ ...common, observe }, mode.identity, mode.watch);
    return { result, watch, outageReason };
  } catch (error) {
    throw startFailure(error, outageReason);
  }
}

interface PassContext {
  options: SyncSessionOptions;
  signal: AbortSignal;
  summary: SyncTally;
  onPipeline: (event: PipelineEvent) => void;
  emit: (event: SyncEvent) => void;
  scan: (signal: AbortSignal) => AsyncIterable<SyncInput[]>;
  /** The run's sidecar tree (a run with archives), shared by the pass and the watch. */
  tree: SidecarTree | undefined;
  /** The run's pairing memory, shared by the pass and the watch. */
  evidence: EvidenceMemory;
}

/** `--dry-run`: the user's journal found read-only, then the scan through the predicting pipeline. */
async function dryPass(pass: PassContext, identity: SyncIdentity | null): Promise<SyncEnded['result']> {
  const { options, signal } = pass;
  const { findDryRunJournal, runDrySync } = await loadDryPass();
  const journal = await findDryRunJournal({
    identity,
    full: options.full,
    journalDir: options.journalDir,
    lookups: options.service,
    signal,
    onFinding: pass.emit,
  });
  try {
    const { batchSize, full } = options;
    return await runDrySync({
      scan: pass.scan,
      batchSize,
      signal,
      onEvent: pass.onPipeline,
      summary: pass.summary,
      full,
      journal,
      allowEmpty: options.allowEmpty,
      allowMissingParts: options.allowMissingParts === true,
    });
  } finally {
    journal?.close();
  }
}

/** The real pass, and `--watch` after it. */
async function realPass(
  pass: PassContext & { observe: (attempt: AttemptOutcome) => void },
  identity: SyncIdentity,
  watchOptions: { poll: boolean } | null,
): Promise<{ result: SyncResult; watch: SyncEnded['watch'] }> {
  const { options, signal, emit } = pass;
  // The scan starts first, while the client loads and the service is reached: its threads
  // boot and the first files are read by the time the first batch can be sent. Up to eight
  // of the scanner's batches (read groups grow from 8 files to 256: about a thousand records)
  // wait for the first send.
  const early = startAhead(pass.scan(signal), { limit: 8 });
  let opened: [OpenedService, Awaited<ReturnType<typeof loadPass>>];
  try {
    opened = await Promise.all([options.service.open(pass.observe), loadPass()]);
  } catch (error) {
    await early.close();
    throw error;
  }
  const [service, { runSync, startWatch }] = opened;
  // --watch: the watches are set before the pass, so nothing that changes once it began is missed.
  let watch: StartedWatch | null = null;
  let watched: SyncEnded['watch'] = null;
  try {
    if (watchOptions !== null) {
      watch = await startWatch({
        roots: options.roots,
        scan: options.scan,
        cwd: options.cwd,
        poll: watchOptions.poll,
        signal,
        ...(pass.tree ? { tree: pass.tree } : {}),
        evidence: pass.evidence,
      });
    }
    const follower = watch;
    const result = await runSync({
      identity,
      scan: () => early,
      batchSize: options.batchSize,
      concurrency: options.concurrency,
      full: options.full,
      signal,
      journalDir: options.journalDir,
      connection: {
        client: service.client,
        target: service.target,
        users: {
          recall: (target, email) => service.users.recall(target, email),
          remember: (target, email, userId, existing, environment) => {
            service.users.remember(target, email, userId, existing);
            if (!existing) emit({ type: 'user_created', userId, email, target: service.target, environment });
          },
        },
      },
      onEvent: pass.onPipeline,
      summary: pass.summary,
      readHistory: options.readHistory,
      allowEmpty: options.allowEmpty,
      allowMissingParts: options.allowMissingParts,
      notice: (message) => emit({ type: 'status', message }),
      afterPass:
        follower === null
          ? undefined
          : async (ended, changes) => {
              await options.afterPass?.(ended);
              watched = await follower.follow(changes, emit);
            },
    });
    return { result, watch: watched };
  } finally {
    await watch?.close();
    await early.close();
    await service.close();
  }
}

/** The scanner's stream in its batches, with paths shown as the user would see them. */
async function* scanRoots(
  options: SyncSessionOptions,
  signal: AbortSignal,
  progress: {
    tree: SidecarTree | undefined;
    evidence: EvidenceMemory;
    onListed: (files: number, final: boolean) => void;
    onBytes: (bytes: ByteProgress) => void;
  },
  onDone: () => void,
): AsyncGenerator<SyncInput[]> {
  const { roots, cwd } = options;
  const { exclude, followSymlinks, archives, cache, cacheDir, workers, included } = options.scan;
  const { tree, evidence, ...reports } = progress;
  const listing = { ...reports, onWalkDone: (files: number) => progress.onListed(files, true) };
  const batches = scanLibraryBatches({
    roots,
    signal,
    cwd,
    exclude,
    followSymlinks,
    archives,
    cache,
    cacheDir,
    ...listing,
    ...(workers ? { workers } : {}),
    ...(included ? { included } : {}),
    ...(tree ? { tree } : {}),
    evidence,
  });
  for await (const events of batches) {
    await options.pace?.();
    // With one root the scanner's path is already the one shown: no copy of every record.
    const shown =
      roots.length === 1
        ? events
        : events.map(
            (event): ScanEvent =>
              event.type === 'record'
                ? { type: 'record', record: { ...event.record, path: recordDisplayPath(event.record, { roots, cwd }) } }
                : event,
          );
    options.onScanned?.(shown);
    yield shown;
  }
  onDone();
}
