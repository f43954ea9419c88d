import type { PipelineEvent } from '../../sync/pipeline.js';
import type { JsonLinesFile } from './lines.js';
import { fileProblem } from './file-problem.js';

/** Lines queued before `ready()` makes the scan wait for the file (a slow disk, a pipe). */
const HIGH_WATER_LINES = 1024;

/**
 * `sync --report FILE`: one JSON line per item that did not make it, with its reason:
 * `{"type":"scan_error","path","code","message","problem"}` (`problem`: `unreadable`, the bytes
 * could not be read; `damaged`, read but unusable),
 * `{"type":"warning","path","code","message"}` (a folder or file the walk could not read, as
 * `scan --report` lists it),
 * `{"type":"rejected","id","path","reason"}` (`"predicted":true` in a dry run),
 * `{"type":"failed","id","path","error":{"code","message"}}` (a batch that failed after retries),
 * `{"type":"left_out","id","path","origin","rule","signal"}` (not sent for its origin, or collapsed
 * into `paired_with`; `--include CLASS` sends it).
 */
export interface SyncReport {
  onEvent(event: PipelineEvent): void;
  /** Resolves once the file has caught up enough to take more; the scan waits on it (backpressure). */
  ready(): Promise<void>;
  /** Writes what is queued and closes the file; rejects with the first write failure. */
  close(): Promise<void>;
}

/**
 * Feeds pipeline events to a JSON-lines file. The pipeline does not wait per event, so lines
 * are queued and written in order by one loop; the sync pulls its next file only once the
 * queue is short again (`ready`). After a failed write the rest is dropped and the failure
 * surfaces at `close`, once the summary is printed.
 */
export function createSyncReport(file: JsonLinesFile, options: { predicted: boolean }): SyncReport {
  const queue: object[] = [];
  let head = 0;
  let failure: { error: unknown } | null = null;
  let pumping: Promise<void> | null = null;
  let waiters: (() => void)[] = [];
  const wake = (): void => {
    const woken = waiters;
    waiters = [];
    for (const resolve of woken) resolve();
  };
  const backlog = (): number => queue.length - head;

  const pump = async (): Promise<void> => {
    while (backlog() > 0 && failure === null) {
      const line = queue[head]!;
      head += 1;
      try {
        await file.write(line);
      } catch (error) {
        failure = { error };
      }
      if (backlog() < HIGH_WATER_LINES) wake();
    }
    queue.length = 0;
    head = 0;
    pumping = null;
    wake();
  };
  const write = (line: object): void => {
    if (failure !== null) return;
    queue.push(line);
    pumping ??= pump();
  };

  return {
    onEvent(event) {
      switch (event.type) {
        case 'scan_error':
          write({
            type: 'scan_error',
            path: event.path,
            code: event.code,
            message: event.message,
            problem: fileProblem(event.code),
          });
          break;
        case 'notice':
          if (event.kind === 'warning')
            write({ type: 'warning', path: event.path, code: event.code, message: event.message });
          break;
        case 'answered': {
          if (event.response.rejected.length === 0) break;
          const paths = new Map(event.items.map((i) => [i.media.id, i.path]));
          for (const r of event.response.rejected) {
            write({
              type: 'rejected',
              id: r.id,
              path: paths.get(r.id) ?? null,
              reason: r.reason,
              ...(options.predicted ? { predicted: true } : {}),
            });
          }
          break;
        }
        case 'left_out':
          write({
            type: 'left_out',
            id: event.id,
            path: event.path,
            origin: event.origin.origin,
            rule: event.origin.rule,
            signal: event.origin.signal,
            ...(event.origin.pair === null ? {} : { paired_with: event.origin.pair.partner }),
          });
          break;
        case 'failed':
          for (const item of event.items) {
            write({
              type: 'failed',
              id: item.media.id,
              path: item.path,
              error: { code: event.error.code, message: event.error.message },
            });
          }
          break;
        default:
          break;
      }
    },
    ready() {
      if (failure !== null || backlog() < HIGH_WATER_LINES) return Promise.resolve();
      return new Promise((resolve) => waiters.push(resolve));
    },
    async close() {
      await pumping;
      const failed = failure as { error: unknown } | null;
      try {
        await file.close();
      } catch (error) {
        throw failed?.error ?? error;
      }
      if (failed !== null) throw failed.error;
    },
  };
}
