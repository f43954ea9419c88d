import type { Writable } from 'node:stream';
import { createLiveDisplay } from './live-display.js';

/** What every file-by-file job's progress shows (scan and sync alike), computed from its counts. */
export interface FileFigures {
  /** Files dealt with so far. */
  done: number;
  /** Media files listed so far (never less than `done`); null before the first folder. */
  total: number | null;
  /** Whether the listing is over (`total` is exact). */
  totalFinal: boolean;
  /** Files per second since the start. */
  rate: number;
  /** Megabytes read per second, when the job knows its bytes. */
  mbps?: number;
  /**
   * Progress in bytes, when the job knows the total from the start (archives: their central
   * directories, a .tgz's file size): the ETA and the bar follow it, since a video weighs a
   * hundred photos.
   */
  bytes?: { done: number; total: number; rate: number };
}

/**
 * The listing's total as shown: it only grows (a total that shrank would look like lost
 * files), is never below what is done, and carries a `+` until the listing is over.
 */
export function createShownTotal(): { update(listed: number | null, done: number): number | null } {
  let shown: number | null = null;
  return {
    update(listed, done) {
      if (listed === null && shown === null) return null;
      shown = Math.max(shown ?? 0, listed ?? 0, done);
      return shown;
    },
  };
}

/** `120/500+ files`, `120/500 files`, `3/? files`. */
export function fileCountText(f: FileFigures): string {
  const total = f.total === null ? '?' : `${Math.max(f.total, f.done)}${f.totalFinal ? '' : '+'}`;
  return `${f.done}/${total} files`;
}

/** `4.5 files/s` below ten a second, `45 files/s` above. */
export function rateText(rate: number): string {
  return `${rate.toFixed(rate < 10 ? 1 : 0)} files/s`;
}

/** The time left once the listing is over ('listing…' until then, '?' before any file is done). */
export function etaText(f: FileFigures): string {
  if (f.bytes !== undefined) {
    const left = Math.max(0, f.bytes.total - f.bytes.done);
    if (left === 0) return '0s';
    return f.bytes.rate > 0 ? formatDuration(left / f.bytes.rate) : '?';
  }
  if (f.total === null || !f.totalFinal) return 'listing…';
  const left = Math.max(0, f.total - f.done);
  if (left === 0) return '0s';
  return f.rate > 0 ? formatDuration(left / f.rate) : '?';
}

/** The figures every job shows first, in the one order: files, rate, MB/s (when known), ETA. */
function figureParts(f: FileFigures): string[] {
  return [
    fileCountText(f),
    rateText(f.rate),
    ...(f.mbps === undefined ? [] : [`${f.mbps.toFixed(1)} MB/s`]),
    `ETA ${etaText(f)}`,
  ];
}

/** Width of a row's label, so scan's and sync's rows line up the same way. */
const LABEL_WIDTH = 5;

/** A terminal row: `scan  |████░░░░| 120/500+ files | 35 files/s | 3.1 MB/s | ETA listing…`, then `extras`. */
export function fileRowText(label: string, bar: string, f: FileFigures, extras: string[] = []): string {
  return `${label.padEnd(LABEL_WIDTH)} |${bar}| ${[...figureParts(f), ...extras].join(' | ')}`;
}

/** A row under the first one, lined up with its figures: `      answered 12 | pending 0`. */
export function followRowText(parts: string[]): string {
  return `${' '.repeat(LABEL_WIDTH)} ${parts.join(' | ')}`;
}

/** A plain line (logs, pipes): `scan: 120/500+ files, 35 files/s, 3.1 MB/s, ETA listing…`, then `extras`. */
export function filePlainText(label: string, f: FileFigures, extras: string[] = []): string {
  return `${label}: ${[...figureParts(f), ...extras].join(', ')}`;
}

/** Live progress of a file-by-file job (scan) on stderr. */
export interface FileProgress {
  /** One file done; `bytesRead` is 0 when it came from a cache. */
  tick(bytesRead: number): void;
  /** Media files listed so far; `final` (the default) once the listing is over. */
  setTotal(total: number, final?: boolean): void;
  /** Bytes done of a total known from the start (see FileFigures.bytes); `cached` ones count as done, not in the rate. */
  setBytes(bytes: { done: number; total: number; cached: number }): void;
  /** A notice or warning, printed whole above the bar. */
  log(line: string): void;
  stop(): void;
}

export interface FileProgressOptions {
  stream: Writable;
  /** A bar redrawn in place on a terminal; plain lines every `intervalMs` otherwise. */
  isTTY: boolean;
  /** Words for the line, e.g. 'scan'. */
  label: string;
  intervalMs?: number;
  now?: () => number;
  /** false (`-q`): no bar and no progress lines; notices and warnings still go out, as plain lines. */
  show?: boolean;
}

/**
 * Files/s, MB/s and, once the total is final, an ETA. The listing runs ahead of reading and
 * reports a growing total (shown as `N+`) until it is over; before its first folder the
 * total is unknown and shown as such rather than guessed.
 */
export function createFileProgress(options: FileProgressOptions): FileProgress {
  if (options.show === false) {
    const none = (): void => undefined;
    return { tick: none, setTotal: none, setBytes: none, stop: none, log: (line) => options.stream.write(`${line}\n`) };
  }
  const now = options.now ?? Date.now;
  const started = now();
  let done = 0;
  let bytes = 0;
  let listed: number | null = null;
  let totalFinal = false;
  let work: { done: number; total: number; cached: number } | null = null;
  const shownTotal = createShownTotal();

  const figures = (): FileFigures => {
    const seconds = Math.max((now() - started) / 1000, 0.001);
    return {
      done,
      total: shownTotal.update(listed, done),
      totalFinal,
      rate: done / seconds,
      mbps: bytes / 1e6 / seconds,
      ...(work === null ? {} : { bytes: byteFigures(work, seconds) }),
    };
  };
  const display = createLiveDisplay({
    stream: options.stream,
    isTTY: options.isTTY,
    ...(options.intervalMs === undefined ? {} : { intervalMs: options.intervalMs }),
    now,
    rows: [
      {
        text: (bar) => fileRowText(options.label, bar, figures()),
        fraction: () => {
          const f = figures();
          if (f.bytes) return f.bytes.total > 0 ? f.bytes.done / f.bytes.total : 0;
          return f.total ? f.done / f.total : 0;
        },
      },
    ],
    plainLine: () => filePlainText(options.label, figures()),
  });
  return {
    tick(bytesRead) {
      done += 1;
      bytes += bytesRead;
      display.refresh();
    },
    setTotal(value, final = true) {
      listed = value;
      totalFinal = final;
      display.refresh();
    },
    setBytes(value) {
      work = value;
      display.refresh();
    },
    log: (line) => display.log(line),
    stop() {
      display.stop();
    },
  };
}

/**
 * The byte figures of a job: its rate counts only bytes read, so a re-scan whose first
 * parts come from the cache does not promise the rest at the cache's speed.
 */
export function byteFigures(
  bytes: { done: number; total: number; cached: number },
  elapsedSeconds: number,
): NonNullable<FileFigures['bytes']> {
  return {
    done: bytes.done,
    total: Math.max(bytes.total, bytes.done),
    rate: Math.max(bytes.done - bytes.cached, 0) / Math.max(elapsedSeconds, 0.001),
  };
}

/** 3725 -> '1h02m', 75 -> '1m15s', 9 -> '9s'. */
export function formatDuration(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  if (s >= 3600) return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`;
  if (s >= 60) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
  return `${s}s`;
}
