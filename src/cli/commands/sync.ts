import { join } from 'node:path';
import type { Command } from 'commander';
import { z } from 'zod';
import type { CliContext } from '../context.js';
import { addConnectionOptions } from '../connection-options.js';
import type { SyncReport } from '../output/sync-report.js';
import { flagsError, parseEmail, parseUserId, wholeNumber } from '../connection-args.js';
import { MAX_BATCH_ITEMS, MIN_BATCH_ITEMS } from '../../contract/index.js';
import { InterruptedError, OutageError, UsageError } from '../../errors.js';
import type { RequestTrace } from '../../client/index.js';
import { createOutageTracker, DEFAULT_MAX_CONNECTION_FAILURES } from '../../sync/outage.js';
import { appPaths } from '../../paths.js';
import { displayPathOf, resolveScanRoots, scanLibraryBatches } from '../../scan/scan.js';
import { startAhead } from '../../scan/head-start.js';
import type { PipelineEvent, SyncInput } from '../../sync/pipeline.js';
import { createProgress, teeProgress, terminalProgress, type ProgressSnapshot } from '../output/sync-progress.js';
import { addScanOptions, type ScanOptions } from '../scan-options.js';
import type { StartedWatch, WatchTotals } from '../sync-watch.js';
import type { DryRunResult, SyncIdentity, SyncResult } from '../../sync/run.js';
import { createSyncTally } from '../../sync/summary.js';

/** Requests in flight at most (`--concurrency`). */
const MAX_CONCURRENCY = 32;

const SyncFlags = z.object({
  user: z.string().min(1).optional(),
  email: z.string().min(1).optional(),
  batchSize: z.number().int().min(MIN_BATCH_ITEMS).max(MAX_BATCH_ITEMS).default(MAX_BATCH_ITEMS),
  concurrency: z.number().int().min(1).max(MAX_CONCURRENCY).default(4),
  full: z.boolean().default(false),
  dryRun: z.boolean().default(false),
  report: z.string().min(1).optional(),
  json: z.boolean().default(false),
  baseUrl: z.string().optional(),
  profile: z.string().optional(),
  retries: z.number().int().optional(),
  timeout: z.number().int().optional(),
  verbose: z.boolean().optional(),
  debug: z.boolean().optional(),
  exclude: z.array(z.string()).default([]),
  followSymlinks: z.boolean().default(false),
  archives: z.boolean().default(false),
  cache: z.boolean().default(true),
  workers: z.number().int().optional(),
  quiet: z.boolean().default(false),
  progress: z.boolean().default(true),
  events: z.boolean().default(true),
  maxConnectionFailures: z.number().int().default(DEFAULT_MAX_CONNECTION_FAILURES),
  allowEmpty: z.boolean().default(false),
  logFile: z.string().min(1).optional(),
  watch: z.boolean().default(false),
  poll: z.boolean().default(false),
});
type SyncFlags = z.infer<typeof SyncFlags>;

/** Scan warnings printed one by one; the rest are only counted. */
const PRINTED_WARNINGS = 20;

/** `camroll sync <dir...>`: scan, send in batches, call sync-complete, print events and stats. */
export function registerSync(program: Command, ctx: CliContext): void {
  const cmd = program
    .command('sync')
    .description('Scan folders and send their metadata to the service in batches; resumable. Prints the matched events and stats.')
    .argument('<dir...>', 'folders or exports (.zip, .tgz, .tar.gz, .tar: read in place) to sync')
    .option('--user <uuid>', 'the service user id to sync for')
    .option('--email <email>', 'create or find the user by e-mail (the id is remembered)')
    .option(
      '--batch-size <n>',
      `items per request, ${MIN_BATCH_ITEMS} to ${MAX_BATCH_ITEMS}`,
      wholeNumber('--batch-size', MIN_BATCH_ITEMS, MAX_BATCH_ITEMS),
      MAX_BATCH_ITEMS,
    )
    .option('--concurrency <n>', `requests in flight at once, 1 to ${MAX_CONCURRENCY}`, wholeNumber('--concurrency', 1, MAX_CONCURRENCY), 4)
    .option('--full', 'send everything again, ignoring the local journal')
    .option('--dry-run', 'scan and show what a real run would send, skip and see rejected; only read-only calls (none without --user/--email)')
    .option('--report <file>', 'write every rejected or failed item (and unreadable file) as JSON lines')
    .option('--json', 'print one JSON summary object on stdout')
    .option('-q, --quiet', 'print the summary only: no progress, no notices (failures are still reported)')
    .option('--no-progress', 'no progress display; notices and warnings as plain lines')
    .option('--no-events', "skip reading and printing the user's events and stats at the end")
    .option('--log-file <file>', 'also write progress lines, notices and every retry to FILE, with timestamps (appended; never the key)')
    .option('--allow-empty', 'a library with no media file is complete (without it: an unmounted drive, and no sync-complete)')
    .option(
      '--max-connection-failures <n>',
      `stop after this many connection failures in a row (the host went away), 1 to 100 (default ${DEFAULT_MAX_CONNECTION_FAILURES})`,
      wholeNumber('--max-connection-failures', 1, 100),
    )
    .option('--watch', 'after the pass, keep watching the folders and send new or changed files as they settle (Ctrl-C stops)')
    .option('--poll', 'with --watch: poll the folders instead of waiting for change events (network shares; automatic for NFS, SMB and FUSE mounts)');
  addScanOptions(cmd);
  addConnectionOptions(cmd).action(async (dirs: string[], raw: unknown) => {
    const parsed = SyncFlags.safeParse(raw);
    if (!parsed.success) throw flagsError(parsed.error);
    const flags = parsed.data;
    if (flags.user && flags.email) throw new UsageError('give either --user or --email, not both');
    if (!flags.user && !flags.email && !flags.dryRun) throw new UsageError('give --user <uuid> or --email <email>');
    if (flags.watch && flags.dryRun) throw new UsageError('--watch sends what changes: it cannot be combined with --dry-run');
    if (flags.poll && !flags.watch) throw new UsageError('--poll goes with --watch');
    // Checked before anything is scanned or sent, like every other command's flags.
    if (flags.user !== undefined) parseUserId(flags.user);
    if (flags.email !== undefined) flags.email = parseEmail(flags.email);
    const roots = resolveScanRoots(dirs, ctx.cwd);
    await runSyncCommand(ctx, roots, flags);
  });
}

/**
 * What a sync needs once its scan is running: the pass, its ending, --watch. Imported then,
 * not with the command, so the walk and the read threads start as soon as the scan
 * command's do; the modules load while they boot.
 */
async function loadRunModules() {
  const [run, watch, outcome, result] = await Promise.all([
    import('../../sync/run.js'),
    import('../sync-watch.js'),
    import('../sync-outcome.js'),
    import('../output/sync-result.js'),
  ]);
  return { ...run, ...watch, ...outcome, ...result };
}

async function runSyncCommand(ctx: CliContext, roots: string[], flags: SyncFlags): Promise<void> {
  const started = Date.now();
  let modules: ReturnType<typeof loadRunModules> | null = null;
  const later = (): ReturnType<typeof loadRunModules> => (modules ??= loadRunModules());
  let report: SyncReport | null = null;
  if (flags.report) {
    const [{ openJsonLinesFile }, { createSyncReport }] = await Promise.all([import('../output/lines.js'), import('../output/sync-report.js')]);
    const file = await openJsonLinesFile(flags.report, { notice: (line) => ctx.stderr.write(`camroll: ${line}\n`) });
    report = createSyncReport(file, { predicted: flags.dryRun });
  }
  const log = flags.logFile === undefined ? null : await (await import('../output/log-file.js')).openLogFile(flags.logFile);
  // The log gets plain progress lines every few seconds, whatever the terminal shows.
  const terminal = terminalProgress({ stream: ctx.stderr, isTTY: ctx.stderrIsTTY, show: !flags.quiet && flags.progress });
  const logView = log === null ? null : createProgress({ stream: log.stream, isTTY: false });
  const progress = logView === null ? terminal : teeProgress(terminal, logView);
  /** A notice or warning: on the terminal unless --quiet, and always in the log file. */
  const note = (line: string): void => {
    if (!flags.quiet) terminal.log(line);
    logView?.log(line);
  };
  const logLine = (line: string): void => {
    log?.stream.write(`${line}\n`);
  };
  let scanDone = false;
  let queued = 0;
  // The walk lists ahead of reading: the total is known early, then exact when the walk ends.
  let total: number | null = null;
  let totalFinal = false;
  const summary = createSyncTally();
  const snapshot = (): ProgressSnapshot => ({ counts: summary.counts, queued, scanDone, total, totalFinal });
  let warnings = 0;
  const listed = (files: number, final: boolean): void => {
    total = files;
    totalFinal = final;
    progress.update(snapshot());
  };
  // The report file paces the scan: a slow disk holds the next file back, not a growing queue.
  const scan = (signal: AbortSignal): AsyncIterable<SyncInput[]> =>
    adaptScan(roots, ctx, flags, signal, () => (scanDone = true), listed, () => report?.ready());
  const onEvent = (event: PipelineEvent): void => {
    report?.onEvent(event);
    if (event.type === 'queued') queued += event.items;
    if (event.type === 'notice' && event.kind === 'warning' && warnings++ < PRINTED_WARNINGS) {
      note(`camroll: warning: ${event.path}: ${event.message} [${event.code}]`);
    }
    if (event.type === 'failed') {
      progress.log(`camroll: a batch of ${event.items.length} items failed: ${event.error.message} [${event.error.code}]; they stay pending`);
    }
    progress.update(snapshot());
  };

  // The host going away stops the sync (journal consistent, summary printed), as does a
  // failure that waiting cannot heal; Ctrl-C stays an interruption.
  const outage = new AbortController();
  let outageReason: string | null = null;
  const tracker = createOutageTracker(flags.maxConnectionFailures);
  const observe = (attempt: RequestTrace): void => {
    const verdict = tracker.observe(attempt);
    if (verdict.stop && outageReason === null) {
      outageReason = verdict.reason;
      outage.abort();
    }
  };
  const signal = AbortSignal.any([ctx.signal, outage.signal]);

  // A report that could not be written fails the command, after the summary is printed.
  let reportFailure: unknown = null;
  // --watch: the watches are set before the pass, so nothing that changes once it began is missed.
  let watch: StartedWatch | null = null;
  let watched: WatchTotals | null = null;
  /** The bars end once (the pass's, before the watch lines start). */
  let progressStopped = false;
  const stopProgress = (): void => {
    if (!progressStopped) progress.stop();
    progressStopped = true;
  };
  /** The user directory and the connection; the client is loaded here, not with the command (undici alone is ~60 ms). */
  const openService = async () => {
    const [{ describeRetry, openConnection, openDirectory }, { createdUserNotice }] = await Promise.all([import('../connection.js'), import('./users.js')]);
    const directory = await openDirectory();
    const connection = await openConnection({
      ctx,
      flags: {
        baseUrl: flags.baseUrl,
        profile: flags.profile,
        retries: flags.retries,
        timeout: flags.timeout,
        verbose: flags.verbose,
        debug: flags.debug,
      },
      client: {
        onRequest: observe,
        onRetry: (notice) => {
          ctx.stderr.write(`camroll: ${describeRetry(notice)}\n`);
          logLine(`camroll: ${describeRetry(notice)}`);
        },
      },
    }).catch((error: unknown) => {
      directory.close();
      throw error;
    });
    return { connection, directory, createdUserNotice };
  };
  const runPass = async (): Promise<SyncResult | DryRunResult> => {
    if (flags.dryRun) {
      const [{ dryRunJournal }, { runDrySync }] = await Promise.all([import('../sync-plan.js'), later()]);
      const journal = await dryRunJournal(ctx, flags, note);
      try {
        return await runDrySync({ scan, batchSize: flags.batchSize, signal, onEvent, summary, full: flags.full, journal });
      } finally {
        journal?.close();
      }
    }
    // The scan starts first, while the HTTP client loads and the service is reached: its
    // threads boot and the first files are read by the time the first batch can be sent.
    // Up to eight of the scanner's batches (read groups grow from 8 files to 256: about a
    // thousand records) wait for the first send.
    const early = startAhead(scan(signal), { limit: 8 });
    let opened: Awaited<ReturnType<typeof openService>>;
    let loaded: Awaited<ReturnType<typeof loadRunModules>>;
    try {
      [opened, loaded] = await Promise.all([openService(), later()]);
    } catch (error) {
      await early.close();
      throw error;
    }
    const { connection, directory, createdUserNotice } = opened;
    const { runSync, startWatch, showResult } = loaded;
    try {
      if (flags.watch) watch = await startWatch({ roots, scan: flags, cwd: ctx.cwd, poll: flags.poll, signal });
      const identity: SyncIdentity = flags.user ? { userId: flags.user } : { email: flags.email! };
      return await runSync({
        identity,
        scan: () => early,
        batchSize: flags.batchSize,
        concurrency: flags.concurrency,
        full: flags.full,
        signal,
        journalDir: join(appPaths().data, 'journals'),
        connection: {
          client: connection.client,
          target: connection.target,
          users: {
            recall: (target, email) => directory.lookup(target, email)?.userId,
            remember: (target, email, userId, existing, environment) => {
              directory.remember({ target, email, userId, source: existing ? 'found' : 'created' });
              if (!existing) progress.log(`camroll: ${createdUserNotice(userId, email, connection.target.kind, environment)}`);
            },
          },
        },
        onEvent,
        summary,
        readHistory: flags.events && !flags.quiet,
        allowEmpty: flags.allowEmpty,
        notice: (line) => note(`camroll: ${line}`),
        afterPass:
          watch === null
            ? undefined
            : async (result, changes) => {
                stopProgress();
                await logOutcome('pass', result);
                showResult(ctx, flags, result, !flags.json);
                // Lines go straight out: the pass's progress display has ended.
                const watchNote = (line: string): void => {
                  if (!flags.quiet) ctx.stderr.write(`${line}\n`);
                  logLine(line);
                };
                watched = await watch!.follow(changes, watchNote, (event) => report?.onEvent(event));
              },
      });
    } finally {
      await (watch as StartedWatch | null)?.close();
      directory.close();
      await early.close();
      await connection.close();
    }
  };
  // Ctrl-C (or the host going away) during start-up or the scan ends as an error rather than
  // an outcome; it is thrown once the progress display and the files are closed.
  const endedBy = async (error: unknown): Promise<unknown> => {
    if (!(error instanceof InterruptedError)) return error;
    if (outageReason === null) return new InterruptedError((await later()).INTERRUPTED, { cause: error });
    return new OutageError(`${outageReason}; nothing was sent: run the same command again when the host is back`, { cause: error });
  };
  /** The outcome and the counts, in the log file. */
  const logOutcome = async (what: 'pass' | 'sync', result: SyncResult | DryRunResult, elapsedMs?: number): Promise<void> => {
    if (log === null) return;
    logLine(`camroll: ${what} ended: outcome ${result.outcome}`);
    for (const line of (await later()).renderCounts(result, { dryRun: result.dry_run, elapsedMs })) logLine(line);
  };
  const settled: { value: SyncResult | DryRunResult } | { error: unknown } = await runPass().then(
    (value) => ({ value }),
    async (error: unknown) => ({ error: await endedBy(error) }),
  );
  stopProgress();
  await report?.close().catch((error: unknown) => (reportFailure = error));
  if ('error' in settled) {
    logLine(`camroll: sync ended: ${settled.error instanceof Error ? settled.error.message : String(settled.error)}`);
    await log?.close().catch(() => undefined);
    throw settled.error;
  }
  const result = settled.value;
  const elapsedMs = Date.now() - started;
  const watchTotals = watched as WatchTotals | null;
  const { renderWatchTotals, showOutcome } = await later();
  if (watchTotals !== null) logLine(`camroll: ${renderWatchTotals(watchTotals)}`);
  else await logOutcome('sync', result, elapsedMs);
  await log?.close().catch((error: unknown) => (reportFailure ??= error));
  showOutcome(ctx, flags, { result, watch: watchTotals, outageReason, elapsedMs });
  if (reportFailure !== null) throw reportFailure;
}

/** The scanner's stream in its batches, with paths shown as the user would see them. */
async function* adaptScan(
  roots: string[],
  ctx: CliContext,
  options: ScanOptions,
  signal: AbortSignal,
  onDone: () => void,
  onListed: (files: number, final: boolean) => void,
  pace: () => Promise<void> | undefined,
): AsyncGenerator<SyncInput[]> {
  const { exclude, followSymlinks, archives, cache, workers } = options;
  const listing = { onListed, onWalkDone: (files: number) => onListed(files, true) };
  for await (const events of scanLibraryBatches({ roots, signal, cwd: ctx.cwd, exclude, followSymlinks, archives, cache, ...listing, ...(workers ? { workers } : {}) })) {
    await pace();
    // With one root the scanner's path is already the one shown: no copy of every record.
    if (roots.length === 1) {
      yield events;
      continue;
    }
    yield events.map((event): SyncInput =>
      event.type === 'record' ? { type: 'record', record: { ...event.record, path: displayPathOf(event.record, roots.length, ctx.cwd) } } : event,
    );
  }
  onDone();
}
