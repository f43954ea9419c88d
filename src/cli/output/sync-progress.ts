import type { Writable } from 'node:stream';
import cliProgress from 'cli-progress';
import { formatDuration } from './progress.js';
import { totalRejected, type SyncCounts } from '../../sync/summary.js';

/** Live numbers the progress display shows. */
export interface ProgressSnapshot {
  counts: SyncCounts;
  /** Items queued for sending so far (grows while the scan runs). */
  queued: number;
  /** Whether the scan has finished (the sent total is final). */
  scanDone: boolean;
}

export interface ProgressView {
  update(snapshot: ProgressSnapshot): void;
  /** A notice line on the same stream, printed above the bars so they stay intact. */
  log(line: string): void;
  stop(): void;
}

export interface ProgressOptions {
  stream: Writable;
  isTTY: boolean;
  /** Seconds between plain lines when not on a terminal. */
  intervalMs?: number;
  now?: () => number;
}

const PLAIN_INTERVAL_MS = 5 * 1000; // 5 s

/** Bars on a terminal, a plain line every few seconds otherwise (logs, CI). */
export function createProgress(options: ProgressOptions): ProgressView {
  return options.isTTY ? createBars(options) : createPlainLines(options);
}

function createBars(options: ProgressOptions): ProgressView {
  const now = options.now ?? Date.now;
  const started = now();
  let latest: ProgressSnapshot | null = null;
  const elapsed = (): number => Math.max(0.001, (now() - started) / 1000);

  // Our own line formats: the totals grow while the scan lists, which cli-progress's own
  // ETA cannot handle, so the ETA is shown only once the scan is done and the total final.
  const scannedLine = (): string => {
    if (!latest) return ' scanned  0 files';
    const c = latest.counts;
    const state = latest.scanDone ? 'done' : `${(c.files / elapsed()).toFixed(0)} files/s`;
    return ` scanned  ${c.files} files | ${state}${c.scan_errors ? ` | ${c.scan_errors} unreadable` : ''}`;
  };
  const sentLine = (bar: string): string => {
    if (!latest) return ` sent    |${bar}| 0 items`;
    const c = latest.counts;
    const done = c.sent + c.pending;
    const rate = c.sent / elapsed();
    const eta = !latest.scanDone ? 'scanning…' : rate > 0 ? formatDuration((latest.queued - done) / rate) : '?';
    const failed = c.failed_batches ? ` | failed batches ${c.failed_batches}` : '';
    return ` sent    |${bar}| ${done}/${latest.queued} items | ${rate.toFixed(0)}/s | ETA ${eta} | matched ${c.matched} | rejected ${totalRejected(c)}${failed}`;
  };

  // Started on the first update, so notices printed while connecting come before the bars.
  let bars: { multibar: cliProgress.MultiBar; scanned: cliProgress.SingleBar; sent: cliProgress.SingleBar } | null = null;
  const start = (): NonNullable<typeof bars> => {
    const multibar = new cliProgress.MultiBar(
      { stream: options.stream as NodeJS.WriteStream, clearOnComplete: false, hideCursor: true, fps: 5 },
      cliProgress.Presets.shades_classic,
    );
    const scanned = multibar.create(1, 0, {}, { format: () => scannedLine() });
    const sent = multibar.create(1, 0, {}, {
      format: (opts, params) => {
        const size = opts.barsize ?? 40;
        const filled = Math.round(params.progress * size);
        return sentLine((opts.barCompleteString ?? '').slice(0, filled) + (opts.barIncompleteString ?? '').slice(0, size - filled));
      },
    });
    return { multibar, scanned, sent };
  };
  return {
    update(snapshot) {
      latest = snapshot;
      bars ??= start();
      bars.scanned.update(snapshot.counts.files);
      bars.sent.setTotal(Math.max(1, snapshot.queued));
      bars.sent.update(snapshot.counts.sent + snapshot.counts.pending);
    },
    log(line) {
      if (bars) bars.multibar.log(`${line}\n`);
      else options.stream.write(`${line}\n`);
    },
    stop() {
      bars?.multibar.stop();
    },
  };
}

function createPlainLines(options: ProgressOptions): ProgressView {
  const now = options.now ?? Date.now;
  const interval = options.intervalMs ?? PLAIN_INTERVAL_MS;
  const started = now();
  let last = started;
  let latest: ProgressSnapshot | null = null;
  const print = (snap: ProgressSnapshot): void => {
    const c = snap.counts;
    const elapsed = Math.max(0.001, (now() - started) / 1000);
    options.stream.write(
      `sync: scanned ${c.files} files (${(c.files / elapsed).toFixed(0)}/s), sent ${c.sent}/${snap.queued}, ` +
        `accepted ${c.accepted}, matched ${c.matched}, rejected ${totalRejected(c)}, ` +
        `already sent ${c.skipped_already_sent}, failed batches ${c.failed_batches}\n`,
    );
  };
  return {
    update(snapshot) {
      latest = snapshot;
      const t = now();
      if (t - last >= interval) {
        last = t;
        print(snapshot);
      }
    },
    log(line) {
      options.stream.write(`${line}\n`);
    },
    stop() {
      if (latest && now() - started >= interval) print(latest);
    },
  };
}

/**
 * The terminal's view: bars or plain lines when `show`; otherwise (--no-progress, --quiet)
 * no progress, and the lines it is given go out as plain lines.
 */
export function terminalProgress(options: ProgressOptions & { show: boolean }): ProgressView {
  if (options.show) return createProgress(options);
  return { update: () => undefined, log: (line) => options.stream.write(`${line}\n`), stop: () => undefined };
}

/** One progress view that feeds two (the terminal and the log file). */
export function teeProgress(first: ProgressView, second: ProgressView): ProgressView {
  return {
    update: (snapshot) => {
      first.update(snapshot);
      second.update(snapshot);
    },
    log: (line) => {
      first.log(line);
      second.log(line);
    },
    stop: () => {
      first.stop();
      second.stop();
    },
  };
}

