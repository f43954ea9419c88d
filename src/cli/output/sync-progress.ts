import type { Writable } from 'node:stream';
import { createLiveDisplay, formatDuration } from './progress.js';
import { totalRejected, type SyncCounts } from '../../sync/summary.js';

/** Live numbers the progress display shows. */
export interface ProgressSnapshot {
  counts: SyncCounts;
  /** Items queued for sending so far (grows while the scan runs). */
  queued: number;
  /** Whether the scan has finished (the sent total is final). */
  scanDone: boolean;
  /** Media files listed so far (the walk lists ahead of reading); null before the first folder. */
  total?: number | null;
  /** Whether `total` is final (the listing is over). */
  totalFinal?: boolean;
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

/** What both displays show, computed once from a snapshot. */
export interface ProgressFigures {
  /** Files dealt with: answered, already answered earlier, duplicates, unreadable, pending. */
  done: number;
  /** The listing's total ('?' while unknown). */
  total: string;
  /** Files per second since the start. */
  rate: number;
  /** 'listing…' until the total is final. */
  eta: string;
  /** Items the service answered in this run and in earlier runs (skipped now). */
  answered: number;
  alreadyAnswered: number;
  /** Items sent and not answered (failed or cut short): the journal's pending, sent again next run. */
  pending: number;
}

/**
 * The figures of a snapshot. Every file ends as answered, already answered (skipped: it
 * advances the bar too), a duplicate, unreadable, or pending; so `done` reaches the total
 * and the ETA is real. At Ctrl-C, `answered` and `pending` are what the next run's resume
 * notice reports (items never sent are neither: the next run sends them as new).
 */
export function progressFigures(snapshot: ProgressSnapshot, elapsedSeconds: number): ProgressFigures {
  const c = snapshot.counts;
  const pending = c.pending;
  const done = c.sent + c.skipped_already_sent + c.duplicates + c.scan_errors + pending;
  const seconds = Math.max(elapsedSeconds, 0.001);
  const rate = done / seconds;
  const total = snapshot.total ?? null;
  const final = snapshot.totalFinal === true || snapshot.scanDone;
  const left = total === null ? 0 : Math.max(total, c.files) - done;
  const eta = total === null || !final ? 'listing…' : left <= 0 ? '0s' : rate > 0 ? formatDuration(left / rate) : '?';
  return {
    done,
    total: total === null ? '?' : String(Math.max(total, c.files)),
    rate,
    eta,
    answered: c.sent + c.skipped_already_sent,
    alreadyAnswered: c.skipped_already_sent,
    pending,
  };
}

/** Two rows on a terminal (files, sent), a plain line every few seconds otherwise (logs, CI). */
export function createProgress(options: ProgressOptions): ProgressView {
  const now = options.now ?? Date.now;
  const started = now();
  let latest: ProgressSnapshot | null = null;
  const figures = (snap: ProgressSnapshot): ProgressFigures => progressFigures(snap, (now() - started) / 1000);

  // Our own line formats: cli-progress's ETA assumes a fixed total, ours grows while listing.
  const filesLine = (bar: string): string => {
    if (!latest) return ` files  |${bar}| 0/? | listing…`;
    const f = figures(latest);
    const unreadable = latest.counts.scan_errors ? ` | ${latest.counts.scan_errors} unreadable` : '';
    return ` files  |${bar}| ${f.done}/${f.total} | ${f.rate.toFixed(0)} files/s | ETA ${f.eta} | read ${latest.counts.files}${unreadable}`;
  };
  const sentLine = (): string => {
    if (!latest) return ' sent   answered 0 | pending 0';
    const f = figures(latest);
    const c = latest.counts;
    const earlier = f.alreadyAnswered ? ` (${f.alreadyAnswered} in earlier runs)` : '';
    const failed = c.failed_batches ? ` | failed batches ${c.failed_batches}` : '';
    return ` sent   answered ${f.answered}${earlier} | pending ${f.pending} | in flight ${Math.max(0, latest.queued - c.sent - c.pending)} | matched ${c.matched} | rejected ${totalRejected(c)}${failed}`;
  };
  const plainLine = (): string => {
    const snap = latest!;
    const c = snap.counts;
    const f = figures(snap);
    return (
      `sync: ${f.done}/${f.total} files (${f.rate.toFixed(0)}/s, ETA ${f.eta}), read ${c.files}, ` +
      `answered ${f.answered} (${f.alreadyAnswered} in earlier runs), pending ${f.pending}, ` +
      `accepted ${c.accepted}, matched ${c.matched}, rejected ${totalRejected(c)}, failed batches ${c.failed_batches}`
    );
  };
  const filesDone = (): number => {
    if (!latest) return 0;
    const f = figures(latest);
    return f.done / Math.max(1, latest.total ?? 0, latest.counts.files);
  };

  const display = createLiveDisplay({
    stream: options.stream,
    isTTY: options.isTTY,
    ...(options.intervalMs === undefined ? {} : { intervalMs: options.intervalMs }),
    now,
    finalPlainLine: true,
    rows: [
      { text: filesLine, fraction: filesDone },
      { text: () => sentLine(), fraction: () => 0 },
    ],
    plainLine,
  });
  return {
    update(snapshot) {
      latest = snapshot;
      display.refresh();
    },
    log: (line) => display.log(line),
    stop: () => display.stop(),
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

