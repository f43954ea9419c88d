import { plural } from '../format/vocabulary.js';
import type { Writable } from 'node:stream';
import { createLiveDisplay } from './live-display.js';
import {
  byteFigures,
  createShownTotal,
  filePlainText,
  fileRowText,
  followRowText,
  type FileFigures,
} from './progress.js';
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
  /** Batches handed to the service and not answered yet (at most `--concurrency`). */
  inFlight?: number;
  /** Bytes the scan has read of a total known from the start (archives); the ETA follows them while it reads. */
  bytes?: { done: number; total: number; cached: number } | null;
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
export interface ProgressFigures extends FileFigures {
  /** Items the service answered in this run and in earlier runs (skipped now). */
  answered: number;
  alreadyAnswered: number;
  /** Items sent and not answered (failed or cut short): the journal's pending, sent again next run. */
  pending: number;
}

/**
 * The figures of a snapshot. Every file ends as answered, already answered (skipped: it
 * advances the bar too), a duplicate, unreadable or damaged, or pending; so `done` reaches
 * the total and the ETA is real. At Ctrl-C, `answered` and `pending` are what the next run's
 * resume notice reports (items never sent are neither: the next run sends them as new).
 * `total` is the listing's as it stands; the display keeps the one it shows from shrinking.
 */
export function progressFigures(snapshot: ProgressSnapshot, elapsedSeconds: number): ProgressFigures {
  const c = snapshot.counts;
  const pending = c.pending;
  const done = c.sent + c.skipped_already_sent + c.duplicates + c.scan_errors + pending;
  const listed = snapshot.total ?? null;
  const seconds = Math.max(elapsedSeconds, 0.001);
  // While the scan reads, its bytes pace the run (sending keeps up with reading, or holds it
  // back); once it is over, what is left is answers, counted in files against a final total.
  const bytes = snapshot.scanDone ? null : snapshot.bytes;
  return {
    ...(bytes ? { bytes: byteFigures(bytes, seconds) } : {}),
    done,
    total: listed === null ? null : Math.max(listed, c.files, done),
    totalFinal: snapshot.totalFinal === true || snapshot.scanDone,
    rate: done / seconds,
    answered: c.sent + c.skipped_already_sent,
    alreadyAnswered: c.skipped_already_sent,
    pending,
  };
}

/** The files that could not be sent, in the summary's words: `2 unreadable`, `1 damaged`. */
function unsentParts(counts: SyncCounts): string[] {
  const parts: string[] = [];
  if (counts.unreadable) parts.push(`${counts.unreadable} unreadable`);
  if (counts.damaged) parts.push(`${counts.damaged} damaged`);
  return parts;
}

/**
 * Two rows on a terminal (the files, in scan's style; then what the service answered), a
 * plain line every few seconds otherwise (logs, CI). "In flight" counts the batches handed
 * to the service and not answered yet: never more than `--concurrency`.
 */
export function createProgress(options: ProgressOptions): ProgressView {
  const now = options.now ?? Date.now;
  const started = now();
  let latest: ProgressSnapshot | null = null;
  const shownTotal = createShownTotal();
  const figures = (snap: ProgressSnapshot): ProgressFigures => {
    const f = progressFigures(snap, (now() - started) / 1000);
    return { ...f, total: shownTotal.update(f.total, f.done) };
  };
  const inFlight = (snap: ProgressSnapshot): string[] =>
    snap.inFlight === undefined ? [] : [`in flight ${plural(snap.inFlight, 'batch', 'batches')}`];

  const filesRow = (bar: string): string => {
    if (!latest) return fileRowText('sync', bar, { done: 0, total: null, totalFinal: false, rate: 0 });
    const f = figures(latest);
    return fileRowText('sync', bar, f, [`read ${latest.counts.files}`, ...unsentParts(latest.counts)]);
  };
  const answersRow = (): string => {
    if (!latest) return followRowText(['answered 0', 'pending 0']);
    const f = figures(latest);
    const c = latest.counts;
    const earlier = f.alreadyAnswered ? ` (${f.alreadyAnswered} in earlier runs)` : '';
    const failed = c.failed_batches ? [`failed batches ${c.failed_batches}`] : [];
    return followRowText([
      `answered ${f.answered}${earlier}`,
      `pending ${f.pending}`,
      ...inFlight(latest),
      `matched ${c.matched}`,
      `rejected ${totalRejected(c)}`,
      ...failed,
    ]);
  };
  const plainLine = (): string => {
    const snap = latest!;
    const c = snap.counts;
    const f = figures(snap);
    return filePlainText('sync', f, [
      `read ${c.files}`,
      ...unsentParts(c),
      `answered ${f.answered} (${f.alreadyAnswered} in earlier runs)`,
      `pending ${f.pending}`,
      ...inFlight(snap),
      `accepted ${c.accepted}`,
      `matched ${c.matched}`,
      `rejected ${totalRejected(c)}`,
      `failed batches ${c.failed_batches}`,
    ]);
  };
  const filesDone = (): number => {
    if (!latest) return 0;
    const f = figures(latest);
    if (f.bytes) return f.bytes.total > 0 ? f.bytes.done / f.bytes.total : 0;
    return f.done / Math.max(1, f.total ?? 0);
  };

  const display = createLiveDisplay({
    stream: options.stream,
    isTTY: options.isTTY,
    ...(options.intervalMs === undefined ? {} : { intervalMs: options.intervalMs }),
    now,
    finalPlainLine: true,
    rows: [
      { text: filesRow, fraction: filesDone },
      { text: answersRow, fraction: () => null },
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
