import { describe, expect, it } from 'vitest';
import { CamrollError } from '../../../src/errors.js';
import type { JsonLinesFile } from '../../../src/cli/output/lines.js';
import { createSyncReport } from '../../../src/cli/output/sync-report.js';
import type { MediaMetadata } from '../../../src/contract/index.js';
import type { PipelineEvent } from '../../../src/sync/pipeline.js';

/** A report file whose writes finish only when the test says so, and may fail. */
function slowFile(options: { failAt?: number } = {}) {
  const written: unknown[] = [];
  const pending: (() => void)[] = [];
  let closed = false;
  const failure = new CamrollError(
    'report_write_failed',
    'cannot write the report file r.jsonl: no space left on the device (ENOSPC)',
  );
  const file: JsonLinesFile = {
    path: 'r.jsonl',
    write: (value) =>
      new Promise<void>((resolve, reject) => {
        pending.push(() => {
          if (options.failAt !== undefined && written.length >= options.failAt) reject(failure);
          else {
            written.push(value);
            resolve();
          }
        });
      }),
    close: async () => {
      closed = true;
      if (options.failAt !== undefined && written.length >= options.failAt) throw failure;
    },
  };
  /** Lets every write asked for so far finish (and those they lead to). */
  const flush = async (): Promise<void> => {
    while (pending.length > 0) {
      pending.shift()!();
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
  };
  return { file, written, flush, failure, isClosed: () => closed };
}

const scanError = (n: number): PipelineEvent => ({
  type: 'scan_error',
  path: `f${n}.jpg`,
  code: 'corrupt_file',
  message: 'bad',
});

describe('sync --report writer', () => {
  it('writes lines in order, and holds the scan back while the file is behind', async () => {
    const { file, written, flush } = slowFile();
    const report = createSyncReport(file, { predicted: false });
    for (let n = 0; n < 2000; n += 1) report.onEvent(scanError(n));
    let ready = false;
    const waiting = report.ready().then(() => (ready = true));
    await new Promise<void>((resolve) => setImmediate(resolve));
    expect(ready).toBe(false);
    await flush();
    await waiting;
    expect(ready).toBe(true);
    await report.close();
    expect(written).toHaveLength(2000);
    expect(written[0]).toEqual({
      type: 'scan_error',
      path: 'f0.jpg',
      code: 'corrupt_file',
      message: 'bad',
      problem: 'damaged',
    });
    expect((written[1999] as { path: string }).path).toBe('f1999.jpg');
  });

  it('a failed write drops the rest, never rejects unhandled, and close rejects with it', async () => {
    const { file, written, flush, failure, isClosed } = slowFile({ failAt: 3 });
    const report = createSyncReport(file, { predicted: false });
    for (let n = 0; n < 10; n += 1) report.onEvent(scanError(n));
    await flush();
    // After the failure the scan is never held back, and later events are not written.
    await report.ready();
    report.onEvent(scanError(99));
    await flush();
    await expect(report.close()).rejects.toBe(failure);
    expect(written).toHaveLength(3);
    expect(isClosed()).toBe(true);
  });

  it('rejected items carry their path, and `predicted` in a dry run', async () => {
    const { file, written, flush } = slowFile();
    const report = createSyncReport(file, { predicted: true });
    const media: MediaMetadata = {
      id: `sha256:${'a'.repeat(64)}`,
      taken_at: '2024-05-01T20:00:00Z',
      latitude: null,
      longitude: null,
      media_type: 'photo',
      filename: 'a.jpg',
      duration_seconds: null,
      device_make: null,
      device_model: null,
      device_lens_model: null,
    };
    report.onEvent({
      type: 'answered',
      items: [{ media, path: 'a.jpg', fingerprint: Buffer.alloc(8) }],
      response: {
        accepted: 0,
        matched: 0,
        rejected: [{ id: media.id, reason: 'missing_coordinates' }],
        matches: [],
        events: [],
        last_sync_at: '2024-05-02T00:00:00Z',
      },
    });
    await flush();
    await report.close();
    expect(written).toEqual([
      { type: 'rejected', id: media.id, path: 'a.jpg', reason: 'missing_coordinates', predicted: true },
    ]);
  });

  it('tells an unreadable file from a damaged one, and lists unreadable folders as scan --report does', async () => {
    const { file, written, flush } = slowFile();
    const report = createSyncReport(file, { predicted: false });
    report.onEvent({ type: 'scan_error', path: 'locked.jpg', code: 'read_error', message: 'EACCES' });
    report.onEvent({ type: 'scan_error', path: 'cut.jpg', code: 'truncated_file', message: 'ends early' });
    report.onEvent({
      type: 'notice',
      kind: 'warning',
      path: 'Private',
      code: 'unreadable_folder',
      message: 'permission denied (EACCES)',
    });
    report.onEvent({ type: 'notice', kind: 'skipped', path: '._a.jpg', code: 'appledouble', message: 'appledouble' });
    await flush();
    await report.close();
    expect(written).toEqual([
      { type: 'scan_error', path: 'locked.jpg', code: 'read_error', message: 'EACCES', problem: 'unreadable' },
      { type: 'scan_error', path: 'cut.jpg', code: 'truncated_file', message: 'ends early', problem: 'damaged' },
      { type: 'warning', path: 'Private', code: 'unreadable_folder', message: 'permission denied (EACCES)' },
    ]);
  });
});
