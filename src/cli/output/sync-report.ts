import type { PipelineEvent } from '../../sync/pipeline.js';
import type { JsonLinesFile } from './lines.js';

/**
 * `sync --report FILE`: one JSON line per item that did not make it, with its reason:
 * `{"type":"scan_error","path","code","message"}`,
 * `{"type":"rejected","id","path","reason"}` (`"predicted":true` in a dry run),
 * `{"type":"failed","id","path","error":{"code","message"}}` (a batch that failed after retries).
 */
export interface SyncReport {
  onEvent(event: PipelineEvent): void;
  /** Closes the file; rejects with the first write failure. */
  close(): Promise<void>;
}

/** Feeds pipeline events to a JSON-lines file. Writes are not awaited per event (the pipeline does not wait); a failure surfaces at close. */
export function createSyncReport(file: JsonLinesFile, options: { predicted: boolean }): SyncReport {
  let writing: Promise<void> = Promise.resolve();
  const write = (line: object): void => {
    // Chained, so lines keep their order and a failed write stops the rest.
    writing = writing.then(() => file.write(line));
    // Marked handled now: close() reports the failure, maybe long after it happened.
    writing.catch(() => undefined);
  };
  return {
    onEvent(event) {
      switch (event.type) {
        case 'scan_error':
          write({ type: 'scan_error', path: event.path, code: event.code, message: event.message });
          break;
        case 'answered': {
          if (event.response.rejected.length === 0) break;
          const paths = new Map(event.items.map((i) => [i.media.id, i.path]));
          for (const r of event.response.rejected) {
            write({ type: 'rejected', id: r.id, path: paths.get(r.id) ?? null, reason: r.reason, ...(options.predicted ? { predicted: true } : {}) });
          }
          break;
        }
        case 'failed':
          for (const item of event.items) {
            write({ type: 'failed', id: item.media.id, path: item.path, error: { code: event.error.code, message: event.error.message } });
          }
          break;
        default:
          break;
      }
    },
    async close() {
      try {
        await writing;
      } finally {
        await file.close();
      }
    },
  };
}
