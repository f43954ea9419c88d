import { createRequire } from 'node:module';
import type { Writable } from 'node:stream';

/** Live progress of a file-by-file job on stderr. */
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
  /** Words for the plain line, e.g. 'scan'. */
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

  if (options.isTTY) {
    // Loaded only for a terminal: scripts and pipes never pay for it at start-up.
    const cliProgress = createRequire(import.meta.url)('cli-progress') as typeof import('cli-progress');
    const bar = new cliProgress.SingleBar(
      {
        stream: options.stream as NodeJS.WriteStream,
        hideCursor: true,
        clearOnComplete: true,
        fps: 5,
        format: (_opts, params) => {
          const s = stats();
          const pct = total ? ` ${Math.floor((params.value / Math.max(total, 1)) * 100)}%` : '';
          return `${options.label}${pct} ${params.value}/${s.totalText} files | ${s.rate} files/s | ${s.mbps} MB/s | ETA ${s.eta}`;
        },
      },
      cliProgress.Presets.shades_classic,
    );
    bar.start(1, 0);
    return {
      tick(bytesRead) {
        done += 1;
        bytes += bytesRead;
        bar.update(done);
      },
      setTotal(value, final = true) {
        total = value;
        totalFinal = final;
        bar.setTotal(Math.max(value, 1));
      },
      stop() {
        bar.stop();
      },
    };
  }

  const timer = setInterval(() => {
    const s = stats();
    options.stream.write(`${options.label}: ${done}/${s.totalText} files, ${s.rate} files/s, ${s.mbps} MB/s, ETA ${s.eta}\n`);
  }, options.intervalMs ?? 5000); // 5 s: often enough for a log, rare enough not to flood it
  timer.unref();
  return {
    tick(bytesRead) {
      done += 1;
      bytes += bytesRead;
    },
    setTotal(value, final = true) {
      total = value;
      totalFinal = final;
    },
    stop() {
      clearInterval(timer);
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
