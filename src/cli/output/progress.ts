import { createRequire } from 'node:module';
import type { Writable } from 'node:stream';
import type { MultiBar, SingleBar } from 'cli-progress';

/**
 * The one live display of camroll's long jobs (scan, sync): rows redrawn in place on a
 * terminal, a plain line every few seconds otherwise (logs, CI, TERM=dumb). What the rows
 * say is the caller's; how they reach the stream is decided here only.
 */
export interface LiveDisplay {
  /** New figures: redraw (a terminal) or remember them for the next plain line. */
  refresh(): void;
  /** A notice line on the same stream, printed above the rows so they stay intact. */
  log(line: string): void;
  stop(): void;
}

/** One row on a terminal: its text around the bar drawn at `fraction` (0 to 1). */
export interface LiveRow {
  text(bar: string): string;
  fraction(): number;
}

export interface LiveDisplayOptions {
  stream: Writable;
  isTTY: boolean;
  /** Rows redrawn on a terminal. */
  rows: LiveRow[];
  /** The plain line written every `intervalMs` when the stream is not a terminal. */
  plainLine(): string;
  intervalMs?: number;
  /** Also write a last plain line at `stop()` when the job lasted an interval or more. */
  finalPlainLine?: boolean;
  /** Clear the rows from the terminal at `stop()` (a summary follows that says it all). */
  clearOnStop?: boolean;
  now?: () => number;
}

const PLAIN_INTERVAL_MS = 5 * 1000; // 5 s: often enough for a log, rare enough not to flood it
const BAR_STEPS = 1000;

/** A live display on `stream`; nothing is drawn before the first `refresh()`. */
export function createLiveDisplay(options: LiveDisplayOptions): LiveDisplay {
  return options.isTTY ? createRows(options) : createPlainLines(options);
}

function createRows(options: LiveDisplayOptions): LiveDisplay {
  let drawn: { multibar: MultiBar; bars: SingleBar[] } | null = null;
  // Started on the first refresh, so notices printed before the job starts come above it.
  const start = (): NonNullable<typeof drawn> => {
    // Loaded only for a terminal: scripts and pipes never pay for it at start-up.
    const cliProgress = createRequire(import.meta.url)('cli-progress') as typeof import('cli-progress');
    const multibar = new cliProgress.MultiBar(
      { stream: options.stream as NodeJS.WriteStream, clearOnComplete: options.clearOnStop === true, hideCursor: true, fps: 5 },
      cliProgress.Presets.shades_classic,
    );
    const bars = options.rows.map((row) =>
      multibar.create(BAR_STEPS, 0, {}, {
        format: (opts, params) => {
          const size = opts.barsize ?? 40;
          const filled = Math.round(Math.min(1, Math.max(0, params.progress)) * size);
          return row.text((opts.barCompleteString ?? '').slice(0, filled) + (opts.barIncompleteString ?? '').slice(0, size - filled));
        },
      }),
    );
    return { multibar, bars };
  };
  return {
    refresh() {
      drawn ??= start();
      options.rows.forEach((row, i) => drawn!.bars[i]!.update(Math.round(Math.min(1, Math.max(0, row.fraction())) * BAR_STEPS)));
    },
    log(line) {
      if (drawn) drawn.multibar.log(`${line}\n`);
      else options.stream.write(`${line}\n`);
    },
    stop() {
      drawn?.multibar.stop();
    },
  };
}

function createPlainLines(options: LiveDisplayOptions): LiveDisplay {
  const now = options.now ?? Date.now;
  const interval = options.intervalMs ?? PLAIN_INTERVAL_MS;
  const started = now();
  let refreshed = false;
  // On a timer, not on refreshes: a job stuck on one huge file still says how far it got.
  const timer = setInterval(() => {
    if (refreshed) options.stream.write(`${options.plainLine()}\n`);
  }, interval);
  timer.unref();
  let stopped = false;
  return {
    refresh() {
      refreshed = true;
    },
    log(line) {
      options.stream.write(`${line}\n`);
    },
    stop() {
      if (stopped) return;
      stopped = true;
      clearInterval(timer);
      if (options.finalPlainLine && refreshed && now() - started >= interval) options.stream.write(`${options.plainLine()}\n`);
    },
  };
}

/** Live progress of a file-by-file job (scan) on stderr. */
export interface FileProgress {
  /** One file done; `bytesRead` is 0 when it came from a cache. */
  tick(bytesRead: number): void;
  /** Media files listed so far; `final` (the default) once the listing is over. */
  setTotal(total: number, final?: boolean): void;
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
}

/**
 * Files/s, MB/s and, once the total is final, an ETA. The listing runs ahead of reading and
 * reports a growing total (shown as `N+`) until it is over; before its first folder the
 * total is unknown and shown as such rather than guessed.
 */
export function createFileProgress(options: FileProgressOptions): FileProgress {
  const now = options.now ?? Date.now;
  const started = now();
  let done = 0;
  let bytes = 0;
  let total: number | null = null;
  let totalFinal = false;

  const stats = (): { rate: string; mbps: string; eta: string; totalText: string } => {
    const seconds = Math.max((now() - started) / 1000, 0.001);
    const rate = done / seconds;
    const eta = total === null || !totalFinal ? 'listing…' : rate > 0 ? formatDuration(Math.max(0, total - done) / rate) : '?';
    return {
      rate: rate.toFixed(rate < 10 ? 1 : 0),
      mbps: (bytes / 1e6 / seconds).toFixed(1),
      eta,
      totalText: total === null ? '?' : `${total}${totalFinal ? '' : '+'}`,
    };
  };
  const display = createLiveDisplay({
    stream: options.stream,
    isTTY: options.isTTY,
    ...(options.intervalMs === undefined ? {} : { intervalMs: options.intervalMs }),
    now,
    clearOnStop: true,
    rows: [
      {
        text: () => {
          const s = stats();
          const pct = total ? ` ${Math.floor((done / Math.max(total, 1)) * 100)}%` : '';
          return `${options.label}${pct} ${done}/${s.totalText} files | ${s.rate} files/s | ${s.mbps} MB/s | ETA ${s.eta}`;
        },
        fraction: () => (total ? done / total : 0),
      },
    ],
    plainLine: () => {
      const s = stats();
      return `${options.label}: ${done}/${s.totalText} files, ${s.rate} files/s, ${s.mbps} MB/s, ETA ${s.eta}`;
    },
  });
  return {
    tick(bytesRead) {
      done += 1;
      bytes += bytesRead;
      display.refresh();
    },
    setTotal(value, final = true) {
      total = value;
      totalFinal = final;
      display.refresh();
    },
    stop() {
      display.stop();
    },
  };
}

/** 3725 -> '1h02m', 75 -> '1m15s', 9 -> '9s'. */
export function formatDuration(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  if (s >= 3600) return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`;
  if (s >= 60) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
  return `${s}s`;
}
