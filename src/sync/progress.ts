import type { Writable } from 'node:stream';
import cliProgress from 'cli-progress';
import { totalRejected, type SyncCounts } from './summary.js';

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

/** Nothing at all (`--json` keeps stderr quiet only for errors). */
export function silentProgress(): ProgressView {
  return { update: () => undefined, stop: () => undefined };
}

function createBars(options: ProgressOptions): ProgressView {
  const multibar = new cliProgress.MultiBar(
    {
      stream: options.stream as NodeJS.WriteStream,
      clearOnComplete: false,
      hideCursor: true,
      etaBuffer: 50,
      fps: 5,
      format: ' {label} |{bar}| {value}/{total} {unit} | {rate}/s | ETA {eta_formatted} {extra}',
    },
    cliProgress.Presets.shades_classic,
  );
  const started = (options.now ?? Date.now)();
  const scanned = multibar.create(1, 0, { label: 'scanned', unit: 'files', rate: '0', extra: '' });
  const sent = multibar.create(1, 0, { label: 'sent   ', unit: 'items', rate: '0', extra: '' });
  return {
    update({ counts, queued, scanDone }) {
      const elapsed = Math.max(0.001, ((options.now ?? Date.now)() - started) / 1000);
      scanned.setTotal(Math.max(1, scanDone ? counts.files : counts.files + 1));
      scanned.update(counts.files, { rate: (counts.files / elapsed).toFixed(0), extra: counts.scan_errors ? `| ${counts.scan_errors} unreadable` : '' });
      const done = counts.sent + counts.pending;
      sent.setTotal(Math.max(1, queued));
      sent.update(done, {
        rate: (counts.sent / elapsed).toFixed(0),
        extra: `| matched ${counts.matched} | rejected ${totalRejected(counts)}${counts.failed_batches ? ` | failed batches ${counts.failed_batches}` : ''}`,
      });
    },
    stop() {
      multibar.stop();
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
    stop() {
      if (latest && now() - started >= interval) print(latest);
    },
  };
}
