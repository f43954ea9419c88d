import { statSync } from 'node:fs';
import type { Command } from 'commander';
import { addScanOptions, scanOptionsFrom, type ScanOptions } from '../scan-options.js';
import { explainRecord, type ZoneNote } from '../format/explain.js';
import type { CliContext } from '../context.js';
import { loadHtmlReport, loadScanner, loadTimeZones } from '../lazy.js';
import { InterruptedError, UsageError } from '../../errors.js';
import {
  archiveKindOf,
  createScanSummary,
  failureCount,
  asGiven,
  recordDisplayPath,
  wouldBeRejected,
  type ScanEvent,
  type ScanRecord,
} from '../../scan/index.js';
import { emit, notice, warningLine } from '../output/emit.js';
import { createFileProgress } from '../output/progress.js';
import { openJsonLinesFile, writeLineWithBackpressure, type JsonLinesFile } from '../output/lines.js';
import { formatScanSummary } from '../output/scan-summary.js';
import { fileProblem } from '../output/file-problem.js';
import { HTML_OPTION_HELP } from '../html-option.js';
import { terminalWidth } from '../format/width.js';

/** What a page of a scan that did not finish shows. */
const READ_UNTIL_THEN = 'The figures are of the files read until then, not of the whole library.';

interface ScanFlags extends ScanOptions {
  jsonl?: boolean;
  json?: boolean;
  report?: string;
  html?: string;
  quiet?: boolean;
}

/** Checks commander's flag values (by hand rather than with zod, which would cost start-up time). */
function parseScanFlags(raw: Record<string, unknown>): ScanFlags {
  const report = raw.report as string | undefined;
  if (report !== undefined && report.length === 0) throw new UsageError('--report needs a file name');
  const html = raw.html as string | undefined;
  if (html !== undefined && html.length === 0) throw new UsageError('--html needs a file name');
  return {
    ...scanOptionsFrom(raw),
    jsonl: raw.jsonl === true,
    json: raw.json === true,
    quiet: raw.quiet === true,
    ...(report !== undefined ? { report } : {}),
    ...(html !== undefined ? { html } : {}),
  };
}

/** At most this many warnings are printed one by one; the summary counts them all. */
const PRINTED_WARNINGS = 20;

/** `camroll scan <dir...>`: walk, extract and hash locally, print a summary or JSON lines. */
export function registerScan(program: Command, ctx: CliContext): void {
  const cmd = program
    .command('scan')
    .description(
      'Walk folders, read capture time, place and device of every photo and video, and hash them. No network.',
    )
    .argument(
      '<dir...>',
      'folders, exports (.zip, .tgz, .tar.gz, .tar: read in place) or files (files alone: each value explained)',
    )
    .option('--jsonl', 'print one JSON object per media file on stdout (the summary goes to stderr)')
    .option('--json', 'print the summary as one JSON object on stdout')
    .option(
      '--report <file>',
      'write problem files (errors, items the service would reject, files sync would leave out) as JSON lines',
    )
    .option('--html <file>', HTML_OPTION_HELP)
    .option('-q, --quiet', 'no progress: the summary, warnings and errors only');
  addScanOptions(cmd).action(async (dirs: string[], rawFlags: Record<string, unknown>) => {
    const flags = parseScanFlags(rawFlags);
    if (flags.jsonl && flags.json) throw new UsageError('--jsonl and --json cannot be combined');
    const scan = await loadScanner();
    const roots = scan.resolveScanRoots(dirs, ctx.cwd);
    await runScan(ctx, scan, roots, flags);
  });
}

type ScanModule = Awaited<ReturnType<typeof loadScanner>>;

async function runScan(ctx: CliContext, scan: ScanModule, roots: string[], flags: ScanFlags): Promise<void> {
  const summary = createScanSummary();
  let report: JsonLinesFile | null = null;
  if (flags.report) {
    report = await openJsonLinesFile(flags.report, { notice: (line) => notice(ctx.stderr, line) });
  }
  const progress = createFileProgress({
    stream: ctx.stderr,
    isTTY: ctx.stderrIsTTY,
    label: 'scan',
    show: flags.quiet !== true,
  });
  const started = Date.now();
  const shown = (record: ScanRecord): string => recordDisplayPath(record, { roots, cwd: ctx.cwd });
  const html = flags.html === undefined ? null : await (await loadHtmlReport()).openHtmlReport(flags.html, shown);
  const subject = `scan of ${roots.map((root) => asGiven(root, { roots, cwd: ctx.cwd })).join(', ')}`;
  /** The page, led by a notice when the scan did not read everything (what was read until then). */
  const writePage = async (notice: string | null): Promise<void> =>
    html?.write({ subject, notice: notice === null ? null : `${notice} ${READ_UNTIL_THEN}` });
  let printedWarnings = 0;
  let interrupted = false;
  // `camroll scan --jsonl | head`: when the reader goes away, stop quietly, like other tools.
  let stdoutClosed = false;
  const local = new AbortController();
  const onStdoutError = (error: NodeJS.ErrnoException): void => {
    if (error.code !== 'EPIPE') return;
    stdoutClosed = true;
    local.abort();
  };
  ctx.stdout.on('error', onStdoutError);

  // Files named on their own (no folder) get an explanation of each value instead of a summary.
  const explain =
    !flags.jsonl && !flags.json && roots.every((root) => statSync(root).isFile() && archiveKindOf(root) === null);
  const explained: ScanRecord[] = [];

  const handle = async (event: ScanEvent): Promise<void> => {
    summary.add(event);
    html?.add(event);
    if (event.type === 'warning') {
      if (printedWarnings < PRINTED_WARNINGS) progress.log(warningLine(event.path, event.message, event.code));
      printedWarnings += 1;
      await report?.write({ path: event.path, warning: { code: event.code, message: event.message } });
      return;
    }
    if (event.type !== 'record') return;
    const { record } = event;
    progress?.tick(record.cached ? 0 : record.size);
    if (explain) explained.push(record);
    if (!flags.jsonl && !report) return; // the line is made only for where it goes
    const line = jsonlLine(record, shown(record));
    if (flags.jsonl) await writeLineWithBackpressure(ctx.stdout, JSON.stringify(line));
    if (!report) return;
    if (record.error) await report.write({ ...line, problem: fileProblem(record.error.code) });
    // Not sent for its origin, or collapsed into its pair: the line says `left_out`.
    else if (record.origin?.left_out) await report.write(line);
    else if (record.media) {
      const rejection = wouldBeRejected(record.media);
      if (rejection) await report.write({ ...line, rejection });
    }
  };

  try {
    for await (const event of scan.scanLibrary({
      roots,
      exclude: flags.exclude,
      followSymlinks: flags.followSymlinks ?? false,
      archives: flags.archives,
      cache: flags.cache,
      included: flags.included,
      cacheDir: ctx.paths.cache,
      signal: AbortSignal.any([ctx.signal, local.signal]),
      cwd: ctx.cwd,
      ...(flags.workers ? { workers: flags.workers } : {}),
      // The listing runs ahead of reading: a total (and an ETA) early, exact once the walk ends.
      onListed: (files, final) => progress?.setTotal(files, final),
      onWalkDone: (files) => progress?.setTotal(files, true),
      // Archives know their bytes up front: the ETA follows them from the start.
      onBytes: (bytes) => progress?.setBytes(bytes),
    })) {
      await handle(event);
    }
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EPIPE') stdoutClosed = true;
    else if (!(error instanceof InterruptedError)) {
      // The page shows what was read until then, and says the scan did not finish.
      await writePage(`The scan ended early: ${(error as Error).message}.`).catch(() => undefined);
      throw error;
    }
    interrupted = !stdoutClosed;
  } finally {
    progress?.stop();
    await report?.close();
    ctx.stdout.off('error', onStdoutError);
  }
  if (stdoutClosed) {
    // Whoever read the output stopped reading (`| head`): the page still says what was read.
    await writePage('The scan stopped when its output was closed.');
    return;
  }

  const result = summary.result();
  const elapsedMs = Date.now() - started;
  if (explain) {
    for (const record of explained)
      ctx.stdout.write(`${explainRecord(record, shown(record), await zoneNote(record))}\n`);
  } else if (flags.json) {
    ctx.stdout.write(`${JSON.stringify({ ...result, elapsed_ms: elapsedMs, interrupted })}\n`);
  } else {
    const out = flags.jsonl ? ctx.stderr : ctx.stdout;
    out.write(`${formatScanSummary(result, { elapsedMs, interrupted, width: terminalWidth(out) })}\n`);
  }
  await writePage(interrupted ? 'The scan was interrupted.' : null);
  const unopened = result.skipped.archive ?? 0;
  if (unopened > 0)
    emit(
      ctx.stderr,
      `camroll: ${unopened} ${unopened === 1 ? 'archive was' : 'archives were'} not opened; add --archives to read them in place\n`,
    );
  if (interrupted) throw new InterruptedError('scan interrupted; the summary above is partial');
  if (failureCount(result) > 0) ctx.exitCode = Math.max(ctx.exitCode, 1);
}

/**
 * The `--jsonl` line of a record (docs/contract/product-decisions.md §1, plus `source` with the
 * file's `origin`, and `left_out` with its class when it is not sent).
 */
export function jsonlLine(record: ScanRecord, path: string): Record<string, unknown> {
  if (record.media) {
    const origin = record.origin;
    if (record.source === null || !origin) return { path, media: record.media, source: record.source };
    const { evidence: _, ...source } = record.source;
    return {
      path,
      media: record.media,
      source: {
        ...source,
        origin: origin.origin,
        origin_rule: origin.rule,
        ...(origin.pair === null ? {} : { paired_with: origin.pair.partner }),
      },
      ...(origin.left_out === null ? {} : { left_out: origin.left_out }),
    };
  }
  return { path, error: record.error ?? { code: 'internal_error', message: 'no media and no error' } };
}

/** For a time placed by a zone lookup: the zone at the coordinates and its offset then. */
async function zoneNote(record: ScanRecord): Promise<ZoneNote | null> {
  const media = record.media;
  if (
    record.source?.taken_at !== 'timezone_lookup' ||
    media?.taken_at == null ||
    media.latitude === null ||
    media.longitude === null
  ) {
    return null;
  }
  const [{ loadDefaultZoneFinder }, { DateTime }] = await loadTimeZones();
  const zone = (await loadDefaultZoneFinder())(media.latitude, media.longitude)[0];
  if (zone === undefined) return null;
  return { zone, offset: DateTime.fromISO(media.taken_at, { zone }).toFormat('ZZ') };
}
