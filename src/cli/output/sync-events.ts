import { closedArchives, plural } from '../format/vocabulary.js';
import type { CliContext } from '../context.js';
import { describeError } from '../exit.js';
import { loadHtmlReport, loadLogFile, loadSyncOutcome, loadSyncReportFile } from '../lazy.js';
import { emit, notice, noticeLine, warningLine } from './emit.js';
import type { LogFile } from './log-file.js';
import type { OutcomeFlags } from './sync-outcome.js';
import { createProgress, teeProgress, terminalProgress } from './sync-progress.js';
import type { SyncReport } from './sync-report.js';
import { createdUserNotice } from './user-notices.js';
import type { DryRunFinding } from '../../sync/dry-run-journal.js';
import type { SyncEnded, SyncEvent, SyncProgress, SyncResult } from '../../sync/session.js';
import { COLLAPSED, type OriginClass, type ScanEvent } from '../../scan/index.js';
import type { HtmlReportFile } from './html-report.js';
import { totalRejected, type SyncCounts } from '../../sync/summary.js';

/** Scan warnings printed one by one; the rest are only counted. */
const PRINTED_WARNINGS = 20;

/** What the display needs of sync's flags. */
export interface SyncViewFlags extends OutcomeFlags {
  progress: boolean;
}

export interface SyncViewOptions {
  ctx: CliContext;
  flags: SyncViewFlags;
  report: SyncReport | null;
  log: LogFile | null;
  html?: HtmlReportFile | null;
}

/** What `camroll sync` shows of a session as it runs: progress, notices, warnings, watch lines, the log file. */
export interface SyncView {
  onEvent(event: SyncEvent, progress: SyncProgress): void;
  /** The pass's scanned files, for `--html`. */
  scanned(events: readonly ScanEvent[]): void;
  /** A retry's line: on stderr always (it explains a wait), and in the log. */
  retry(line: string): void;
  /** `--watch`: the pass ended; its summary and hints are shown before the watch's lines. */
  passEnded(result: SyncResult): Promise<void>;
  /**
   * How the sync ended, on every path: the display and the files closed, then the summary
   * and the exit code, or the error that ended it (thrown once the files are closed).
   */
  finish(settled: { value: SyncEnded } | { error: unknown }, started: number): Promise<void>;
}

/**
 * `--report FILE` and `--log-file FILE`, opened before the scan starts (a path that cannot
 * be written stops the sync first); their modules load only when asked for.
 */
export async function openSyncFiles(
  ctx: CliContext,
  flags: { report?: string; logFile?: string; html?: string; dryRun: boolean },
): Promise<{ report: SyncReport | null; log: LogFile | null; html: HtmlReportFile | null }> {
  let report: SyncReport | null = null;
  if (flags.report !== undefined) {
    const [{ openJsonLinesFile }, { createSyncReport }] = await loadSyncReportFile();
    const file = await openJsonLinesFile(flags.report, { notice: (line) => notice(ctx.stderr, line) });
    report = createSyncReport(file, { predicted: flags.dryRun });
  }
  const log = flags.logFile === undefined ? null : await (await loadLogFile()).openLogFile(flags.logFile);
  const html = flags.html === undefined ? null : await (await loadHtmlReport()).openHtmlReport(flags.html);
  return { report, log, html };
}

/** The display of one sync: the terminal's progress (or plain lines), teed to `--log-file`. */
export function createSyncView(options: SyncViewOptions): SyncView {
  const { ctx, flags, report, log } = options;
  const html = options.html ?? null;
  // The log gets plain progress lines every few seconds, whatever the terminal shows.
  const terminal = terminalProgress({
    stream: ctx.stderr,
    isTTY: ctx.stderrIsTTY,
    show: !flags.quiet && flags.progress,
  });
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
  /**
   * While watching, lines go straight out: the pass's progress display has ended. --quiet keeps
   * the watch's warnings (a folder it cannot watch), as it keeps the pass's.
   */
  const watchNote = (line: string, warning = false): void => {
    if (!flags.quiet || warning) emit(ctx.stderr, `${line}\n`);
    logLine(line);
  };
  let warnings = 0;
  let stopped = false;
  const stopProgress = (): void => {
    if (!stopped) progress.stop();
    stopped = true;
  };
  const passEnded = async (result: SyncResult): Promise<void> => {
    stopProgress();
    const { outcomeLogLines, showResult } = await loadSyncOutcome();
    if (log !== null) for (const line of outcomeLogLines('pass', { result, watch: null })) logLine(line);
    showResult(ctx, flags, result, !flags.json);
  };
  const finish = async (settled: { value: SyncEnded } | { error: unknown }, started: number): Promise<void> => {
    stopProgress();
    // A report that could not be written fails the command, after the summary is printed.
    let reportFailure: unknown = null;
    await report?.close().catch((error: unknown) => (reportFailure = error));
    if ('error' in settled) {
      const reason = settled.error instanceof Error ? settled.error.message : String(settled.error);
      // The page still shows the library read until then, and says the sync had no result.
      await html?.writeEnded(reason).catch(() => undefined);
      logLine(`camroll: sync ended: ${reason}`);
      await log?.close().catch(() => undefined);
      throw settled.error;
    }
    const elapsedMs = Date.now() - started;
    await html?.writeSync(settled.value.result).catch((error: unknown) => (reportFailure ??= error));
    const { outcomeLogLines, showOutcome } = await loadSyncOutcome();
    if (log !== null) for (const line of outcomeLogLines('sync', settled.value, elapsedMs)) logLine(line);
    await log?.close().catch((error: unknown) => (reportFailure ??= error));
    showOutcome(ctx, flags, { ...settled.value, elapsedMs });
    if (reportFailure !== null) throw reportFailure;
  };

  const onEvent = (event: SyncEvent, snapshot: SyncProgress): void => {
    switch (event.type) {
      case 'listed':
      case 'read':
        return progress.update(snapshot);
      case 'status':
        return note(noticeLine(event.message));
      case 'user_created':
        // A notice (quiet drops it): the summary and --json say the run created the profile.
        return note(noticeLine(createdUserNotice(event.userId, event.email, event.target, event.environment)));
      case 'plan_unknown_email':
      case 'plan_pass':
      case 'plan_unchecked':
      case 'plan_no_journal':
      case 'plan_journal_reset':
        return note(noticeLine(describeFinding(event)));
      case 'watching':
        return watchNote(
          noticeLine(
            `watching ${describeRoots(event)} for new or changed files${event.polling ? ' (polling)' : ''}; Ctrl-C stops`,
          ),
        );
      case 'watch_warning':
        return watchNote(noticeLine(`warning: ${event.message} [${event.code}]`), true);
      case 'watch_batch':
        return watchNote(noticeLine(describeBatch(event.files, event.before, event.after, event.closed)));
      case 'watch_item':
        return report?.onEvent(event.event);
      default:
        // The pass's pipeline.
        report?.onEvent(event);
        // A warning is shown even with --quiet, which keeps warnings and errors.
        if (event.type === 'notice' && event.kind === 'warning' && warnings++ < PRINTED_WARNINGS) {
          progress.log(warningLine(event.path, event.message, event.code));
        }
        if (event.type === 'failed') {
          const { message, code } = event.error;
          progress.log(
            noticeLine(
              `a batch of ${plural(event.items.length, 'item')} failed: ${message} [${code}]; ` +
                `${event.items.length === 1 ? 'it stays' : 'they stay'} pending`,
            ),
          );
        }
        progress.update(snapshot);
    }
  };
  const retry = (line: string): void => {
    emit(ctx.stderr, `${noticeLine(line)}\n`);
    logLine(noticeLine(line));
  };
  return { onEvent, scanned: (events) => html?.addAll(events), retry, passEnded, finish };
}

/** What a dry run found out about the user's journal, as one notice. */
export function describeFinding(finding: DryRunFinding): string {
  switch (finding.type) {
    case 'plan_unknown_email':
      return (
        `dry run: ${finding.email} is not known on this machine for ${finding.target}: ` +
        'a real run would create or find the user and send every item'
      );
    case 'plan_pass': {
      const pass = finding.pass === 'full' ? 'a full' : 'an incremental';
      return `dry run: a real run would be ${pass} pass (has_synced ${finding.hasSynced})`;
    }
    case 'plan_unchecked':
      return (
        `dry run: could not check with the service (${describeError(finding.error)}); counting from the local ` +
        `journal alone`
      );
    case 'plan_no_journal':
      return 'dry run: no sync journal for this user and target on this machine: a real run would send every item';
    case 'plan_journal_reset':
      return (
        'dry run: the sync journal does not match the service (it has received nothing for this user): ' +
        'a real run would start it over and send every item'
      );
  }
}

/** `1 folder`, `2 exports`, `1 folder and 1 export`: what a watch watches (folders named even when there are none). */
export function describeRoots(roots: { folders: number; exports: number; files: number }): string {
  const parts = [
    roots.folders > 0 || (roots.exports === 0 && roots.files === 0) ? plural(roots.folders, 'folder') : null,
    roots.exports > 0 ? plural(roots.exports, 'export') : null,
    roots.files > 0 ? plural(roots.files, 'file') : null,
  ].filter((part): part is string => part !== null);
  return parts.length === 1 ? parts[0]! : `${parts.slice(0, -1).join(', ')} and ${parts[parts.length - 1]}`;
}

/** Files left out (`collapsed` false) or collapsed into a pair (true) so far. */
const leftOutFiles = (counts: SyncCounts, collapsed: boolean): number =>
  Object.entries(counts.left_out)
    .filter(([origin]) => COLLAPSED.has(origin as OriginClass) === collapsed)
    .reduce((sum, [, count]) => sum + (count?.files ?? 0), 0);

/** One line per batch: how many files, what the service answered, and the archives left closed (`closed`). */
export function describeBatch(files: number, before: SyncCounts, after: SyncCounts, closed = 0): string {
  const d = (
    key:
      | 'sent'
      | 'accepted'
      | 'matched'
      | 'skipped_already_sent'
      | 'failed_batches'
      | 'unreadable'
      | 'damaged'
      | 'duplicates',
  ): number => after[key] - before[key];
  const rejected = totalRejected(after) - totalRejected(before);
  const pending = after.pending - before.pending;
  const parts = [`watch: ${plural(files, 'new or changed file')}`];
  if (d('sent') > 0)
    parts.push(`sent ${d('sent')} (accepted ${d('accepted')}, matched ${d('matched')}, rejected ${rejected})`);
  // A batch of archives left closed had nothing to send: it says why instead.
  else if (pending === 0 && files > closed) parts.push('nothing new to send');
  if (d('skipped_already_sent') > 0) parts.push(`${d('skipped_already_sent')} already sent`);
  // Not sent for their origin, or one moment with a file sent before: said, not silently dropped.
  const collapsed = leftOutFiles(after, true) - leftOutFiles(before, true);
  const leftOut = leftOutFiles(after, false) - leftOutFiles(before, false);
  if (collapsed > 0) parts.push(`${collapsed} collapsed into ${collapsed === 1 ? 'its pair' : 'their pairs'}`);
  if (leftOut > 0) parts.push(`${leftOut} left out by origin`);
  if (d('duplicates') > 0) parts.push(plural(d('duplicates'), 'duplicate'));
  if (d('unreadable') > 0) parts.push(`${d('unreadable')} unreadable`);
  if (d('damaged') > 0) parts.push(`${d('damaged')} damaged`);
  if (d('failed_batches') > 0)
    parts.push(`${plural(d('failed_batches'), 'batch', 'batches')} failed, ${plural(pending, 'item')} pending`);
  // Cut off before an answer (the host went away, Ctrl-C): not sent, and not a failed batch.
  else if (pending > 0) parts.push(`not sent, ${plural(pending, 'item')} pending`);
  return parts.join(', ') + closedArchives(closed);
}
