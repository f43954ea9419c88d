import { createWriteStream, type WriteStream } from 'node:fs';
import { once } from 'node:events';
import type { PipelineEvent } from './pipeline.js';

/**
 * `--report FILE`: one JSON line per item that did not make it, with its reason:
 * `{"type":"scan_error","path","code","message"}`,
 * `{"type":"rejected","id","path","reason"}` (`"predicted":true` in a dry run),
 * `{"type":"failed","id","path","error":{"code","message"}}` (a batch that failed after retries).
 */
export interface ReportWriter {
  onEvent(event: PipelineEvent): void;
  close(): Promise<void>;
}

export interface ReportOptions {
  path: string;
  predicted?: boolean;
}

/** Opens the report file (truncating it) and returns a writer fed by pipeline events. */
export async function openReport(options: ReportOptions): Promise<ReportWriter> {
  const stream: WriteStream = createWriteStream(options.path, { flags: 'w', mode: 0o600 });
  await once(stream, 'open');
  const write = (line: object): void => {
    stream.write(`${JSON.stringify(line)}\n`);
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
      stream.end();
      await once(stream, 'close');
    },
  };
}
