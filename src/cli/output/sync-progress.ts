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

const PLAIN_INTERVAL_MS = 5 * 1000; // 5 s

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

/** Bars on a terminal, a plain line every few seconds otherwise (logs, CI). */
export function createProgress(options: ProgressOptions): ProgressView {
  return options.isTTY ? createBars(options) : createPlainLines(options);
}

function createBars(options: ProgressOptions): ProgressView {
  const now = options.now ?? Date.now;
  const started = now();
  let latest: ProgressSnapshot | null = null;
  const figures = (): ProgressFigures | null => (latest ? progressFigures(latest, (now() - started) / 1000) : null);

  // Our own line formats: cli-progress's ETA assumes a fixed total, ours grows while listing.
  const filesLine = (bar: string): string => {
    const f = figures();
    if (!f || !latest) return ` files  |${bar}| 0/? | listing…`;
    const unreadable = latest.counts.scan_errors ? ` | ${latest.counts.scan_errors} unreadable` : '';
    return ` files  |${bar}| ${f.done}/${f.total} | ${f.rate.toFixed(0)} files/s | ETA ${f.eta} | read ${latest.counts.files}${unreadable}`;
  };
  const sentLine = (): string => {
    const f = figures();
    if (!f || !latest) return ' sent   answered 0 | pending 0';
    const c = latest.counts;
    const earlier = f.alreadyAnswered ? ` (${f.alreadyAnswered} in earlier runs)` : '';
    const failed = c.failed_batches ? ` | failed batches ${c.failed_batches}` : '';
    return ` sent   answered ${f.answered}${earlier} | pending ${f.pending} | in flight ${Math.max(0, latest.queued - c.sent - c.pending)} | matched ${c.matched} | rejected ${totalRejected(c)}${failed}`;
  };

  // Started on the first update, so notices printed while connecting come before the bars.
  let bars: { multibar: cliProgress.MultiBar; files: cliProgress.SingleBar; sent: cliProgress.SingleBar } | null = null;
  const start = (): NonNullable<typeof bars> => {
    const multibar = new cliProgress.MultiBar(
      { stream: options.stream as NodeJS.WriteStream, clearOnComplete: false, hideCursor: true, fps: 5 },
      cliProgress.Presets.shades_classic,
    );
    const files = multibar.create(1, 0, {}, {
      format: (opts, params) => {
        const size = opts.barsize ?? 40;
        const filled = Math.round(params.progress * size);
        return filesLine((opts.barCompleteString ?? '').slice(0, filled) + (opts.barIncompleteString ?? '').slice(0, size - filled));
      },
    });
    const sent = multibar.create(1, 0, {}, { format: () => sentLine() });
    return { multibar, files, sent };
  };
  return {
    update(snapshot) {
      latest = snapshot;
      bars ??= start();
      const f = progressFigures(snapshot, (now() - started) / 1000);
      bars.files.setTotal(Math.max(1, snapshot.total ?? 0, snapshot.counts.files));
      bars.files.update(f.done);
      bars.sent.update(snapshot.counts.sent);
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
    const f = progressFigures(snap, (now() - started) / 1000);
    options.stream.write(
      `sync: ${f.done}/${f.total} files (${f.rate.toFixed(0)}/s, ETA ${f.eta}), read ${c.files}, ` +
        `answered ${f.answered} (${f.alreadyAnswered} in earlier runs), pending ${f.pending}, ` +
        `accepted ${c.accepted}, matched ${c.matched}, rejected ${totalRejected(c)}, failed batches ${c.failed_batches}\n`,
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

