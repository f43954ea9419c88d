import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { IngestResponse } from '../../src/contract/index.js';
import { ApiError } from '../../src/errors.js';
import { openJournal, type Journal } from '../../src/sync/journal.js';
import { runPipeline, type SyncInput } from '../../src/sync/pipeline.js';
import { createSyncTally } from '../../src/sync/summary.js';

/** `count` photos with GPS and a time, then a read error and a damaged file. */
async function* library(count: number): AsyncGenerator<SyncInput[]> {
  for (let n = 1; n <= count; n += 1) {
    const id = `sha256:${n.toString(16).padStart(64, '0')}`;
    const media = {
      id,
      taken_at: '2024-07-13T00:30:00.000Z',
      latitude: 40.75,
      longitude: -73.99,
      media_type: 'photo' as const,
      filename: `IMG_${n}.jpg`,
      duration_seconds: null,
      device_make: null,
      device_model: null,
      device_lens_model: null,
    };
    yield [{ type: 'record', record: { path: `p/${n}.jpg`, media, error: null } }];
  }
  yield [
    { type: 'record', record: { path: 'locked.jpg', media: null, error: { code: 'read_error', message: 'EACCES' } } },
    {
      type: 'record',
      record: { path: 'broken.jpg', media: null, error: { code: 'corrupt_file', message: 'bad jpeg' } },
    },
  ];
}

describe('the live count of batches in flight', () => {
  let dir: string;
  let journal: Journal;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'camroll-in-flight-'));
    journal = openJournal({ dir, key: { baseUrl: 'http://x/v1', partnerId: 'p', userId: 'u' } });
  });
  afterEach(() => {
    journal.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it(
    'never exceeds --concurrency, counts sends the service has not answered, and is 0 at the end; errors are told ' +
      'apart',
    async () => {
      const summary = createSyncTally();
      let active = 0;
      const seen: number[] = [];
      let calls = 0;
      const send = async (batch: unknown[]): Promise<IngestResponse> => {
        active += 1;
        calls += 1;
        const call = calls;
        // The tally agrees with the sends really running, at every step.
        seen.push(summary.inFlight);
        expect(summary.inFlight).toBe(active);
        await new Promise((resolve) => setImmediate(resolve));
        active -= 1;
        if (call === 2) throw new ApiError(500, 'internal_error', 'boom');
        return {
          accepted: batch.length,
          matched: 0,
          rejected: [],
          matches: [],
          events: [],
          last_sync_at: '2024-01-01T00:00:00.000Z',
        };
      };
      await runPipeline({
        input: library(40),
        journal,
        passId: journal.beginPass('full'),
        send,
        batchSize: 3,
        concurrency: 3,
        full: false,
        signal: new AbortController().signal,
        summary,
      });
      expect(Math.max(...seen)).toBe(3);
      expect(summary.inFlight).toBe(0);
      expect(summary.counts).toMatchObject({ files: 42, scan_errors: 2, unreadable: 1, damaged: 1, failed_batches: 1 });
    },
  );
});
