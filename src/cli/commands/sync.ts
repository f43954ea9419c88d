import { join } from 'node:path';
import type { Command } from 'commander';
import type { CliContext } from '../context.js';
import { addConnectionOptions } from '../connection-options.js';
import { flagsError, wholeNumber } from '../flag-values.js';
import { createSyncView, openSyncFiles } from '../output/sync-events.js';
import { HTML_OPTION_HELP } from '../html-option.js';
import { addScanOptions, scanOptionsFrom, type ScanOptions } from '../scan-options.js';
import { createSyncService } from '../sync-service.js';
import { MAX_BATCH_ITEMS, MIN_BATCH_ITEMS } from '../../contract/index.js';
import { resolveScanRoots } from '../../scan/index.js';
import { DEFAULT_MAX_CONNECTION_FAILURES } from '../../sync/outage.js';
import { DEFAULT_CONCURRENCY, MAX_CONCURRENCY, passOf, SyncFlags, type Pass } from '../sync-flags.js';
import { runSyncSession, type SyncEnded } from '../../sync/session.js';

/** `camroll sync <dir...>`: scan, send in batches, call sync-complete, print events and stats. */
export function registerSync(program: Command, ctx: CliContext): void {
  const cmd = program
    .command('sync')
    .description(
      'Scan folders and send their metadata to the service in batches; resumable. Prints the matched events and stats.',
    )
    .argument('<dir...>', 'folders or exports (.zip, .tgz, .tar.gz, .tar: read in place) to sync')
    .option('--user <uuid>', 'the service user id to sync for')
    .option('--email <email>', 'create or find the user by e-mail (the id is remembered)')
    .option(
      '--batch-size <n>',
      `items per request, ${MIN_BATCH_ITEMS} to ${MAX_BATCH_ITEMS}`,
      wholeNumber('--batch-size', MIN_BATCH_ITEMS, MAX_BATCH_ITEMS),
      MAX_BATCH_ITEMS,
    )
    .option(
      '--concurrency <n>',
      `requests in flight at once, 1 to ${MAX_CONCURRENCY}`,
      wholeNumber('--concurrency', 1, MAX_CONCURRENCY),
      DEFAULT_CONCURRENCY,
    )
    .option('--full', 'send everything again, ignoring the local journal')
    .option(
      '--dry-run',
      'scan and show what a real run would send, skip and see rejected; only read-only calls (none without ' +
        '--user/--email)',
    )
    .option('--report <file>', 'write every rejected or failed item (and unreadable file) as JSON lines')
    .option('--html <file>', HTML_OPTION_HELP)
    .option('--json', 'print one JSON summary object on stdout')
    .option('-q, --quiet', 'print the summary only: no progress, no notices (failures are still reported)')
    .option('--no-progress', 'no progress display; notices and warnings as plain lines')
    .option('--no-events', "skip reading and printing the user's events and stats at the end")
    .option(
      '--log-file <file>',
      'also write progress lines, notices and every retry to FILE, with timestamps (appended; never the key)',
    )
    .option(
      '--allow-empty',
      'a library with no media file is complete (without it: an unmounted drive, and no sync-complete)',
    )
    .option(
      '--allow-missing-parts',
      'an export given with numbered parts missing (takeout-…-002.zip, iCloud Photos Part 2 of 3) is the whole ' +
        'library (without it: no sync-complete)',
    )
    .option(
      '--max-connection-failures <n>',
      `stop after this many connection failures in a row (the host went away), 1 to 100 (default ` +
        `${DEFAULT_MAX_CONNECTION_FAILURES})`,
      wholeNumber('--max-connection-failures', 1, 100),
    )
    .option(
      '--watch',
      'after the pass, keep watching the folders and send new or changed files as they settle (Ctrl-C stops)',
    )
    .option(
      '--poll',
      'with --watch: poll the folders instead of waiting for change events (network shares; automatic for NFS, SMB ' +
        'and FUSE mounts)',
    );
  addScanOptions(cmd);
  addConnectionOptions(cmd).action(async (dirs: string[], raw: unknown) => {
    const parsed = SyncFlags.safeParse(raw);
    if (!parsed.success) throw flagsError(parsed.error);
    const flags = parsed.data;
    const pass = passOf(flags);
    const roots = resolveScanRoots(dirs, ctx.cwd);
    await runSyncCommand(ctx, roots, flags, scanOptionsFrom(raw as Record<string, unknown>), pass);
  });
}

/** Runs the session with the flags as options and renders it: the display as it goes, the summary at the end. */
async function runSyncCommand(
  ctx: CliContext,
  roots: string[],
  flags: SyncFlags,
  scan: ScanOptions,
  pass: Pass,
): Promise<void> {
  const started = Date.now();
  const { report, log, html } = await openSyncFiles(ctx, flags);
  const view = createSyncView({ ctx, flags, report, log, html });
  const settled: { value: SyncEnded } | { error: unknown } = await runSyncSession({
    roots,
    cwd: ctx.cwd,
    scan: { ...scan, cacheDir: ctx.paths.cache },
    pass,
    batchSize: flags.batchSize,
    concurrency: flags.concurrency,
    full: flags.full,
    // --html shows the history also with --quiet, which only keeps it off the terminal.
    readHistory: flags.events && (!flags.quiet || flags.html !== undefined),
    allowEmpty: flags.allowEmpty,
    allowMissingParts: flags.allowMissingParts,
    maxConnectionFailures: flags.maxConnectionFailures,
    journalDir: join(ctx.paths.data, 'journals'),
    signal: ctx.signal,
    service: createSyncService({ ctx, flags, onNotice: view.retry }),
    onEvent: view.onEvent,
    onScanned: view.scanned,
    // The report file paces the scan: a slow disk holds the next file back, not a growing queue.
    pace: () => report?.ready(),
    afterPass: view.passEnded,
  }).then(
    (value) => ({ value }),
    (error: unknown) => ({ error }),
  );
  await view.finish(settled, started);
}
