import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { IngestResponse, MediaMetadata } from '../../src/contract/index.js';
import type { ScannedMedia } from '../../src/scan/types.js';
import { ApiError } from '../../src/errors.js';
import { openJournal, type Journal } from '../../src/sync/journal.js';
import { runPipeline, type PipelineEvent, type SyncInput } from '../../src/sync/pipeline.js';

const media = (n: number, extra: Partial<MediaMetadata> = {}): MediaMetadata => ({
  id: `sha256:${n.toString(16).padStart(64, '0')}`,
  taken_at: '2024-07-13T00:30:00.000Z',
  latitude: 40.75,
  longitude: -73.99,
  media_type: 'photo',
  filename: `IMG_${n}.jpg`,
  ...extra,
});

/** What the scanner would give for an item: every member present, null where unknown. */
const scanned = (m: MediaMetadata): ScannedMedia => ({
  id: m.id,
  taken_at: m.taken_at ?? null,
  latitude: m.latitude ?? null,
  longitude: m.longitude ?? null,
  media_type: m.media_type ?? 'photo',
  filename: m.filename ?? '',
  duration_seconds: m.duration_seconds ?? null,
  device_make: m.device_make ?? null,
  device_model: m.device_model ?? null,
  device_lens_model: m.device_lens_model ?? null,
});

/** The scanner's events for `items` (null: a corrupt file), one event a batch. */
async function* records(items: Array<MediaMetadata | null>): AsyncGenerator<SyncInput[]> {
  let i = 0;
  for (const m of items) {
    i += 1;
    yield [
      {
        type: 'record',
        record: {
          path: `p/${i}.jpg`,
          media: m ? scanned(m) : null,
          error: m ? null : { code: 'corrupt_file', message: 'bad jpeg' },
        },
      },
    ];
  }
}

/** A fake service: rejects items without coordinates, matches even-numbered ids. */
function fakeService(
  options: { failWhen?: (batch: MediaMetadata[]) => boolean; delayMs?: number; onCall?: (calls: number) => void } = {},
) {
  const calls: MediaMetadata[][] = [];
  let active = 0;
  let maxActive = 0;
  const send = async (batch: MediaMetadata[], signal: AbortSignal): Promise<IngestResponse> => {
    calls.push(batch);
    active += 1;
    maxActive = Math.max(maxActive, active);
    options.onCall?.(calls.length);
    try {
      await new Promise<void>((resolve, reject) => {
        const t = setTimeout(resolve, options.delayMs ?? 1);
        signal.addEventListener('abort', () => {
          clearTimeout(t);
          reject(new Error('aborted'));
        });
      });
      if (options.failWhen?.(batch)) throw new ApiError(500, 'internal_error', 'boom');
      const rejected = batch
        .filter((m) => m.latitude == null)
        .map((m) => ({ id: m.id, reason: 'missing_coordinates' as const }));
      const accepted = batch.filter((m) => m.latitude != null);
      const matches = accepted.map((m) => {
        const even = parseInt(m.id.slice(-4), 16) % 2 === 0;
        return { media_id: m.id, matched: even, event_id: even ? 1 : null, venue_id: null };
      });
      return {
        accepted: accepted.length,
        matched: matches.filter((m) => m.matched).length,
        rejected,
        matches,
        events: [],
        last_sync_at: '2024-01-01T00:00:00.000Z',
      };
    } finally {
      active -= 1;
    }
  };
  return { send, calls, maxActive: () => maxActive };
}

describe('runPipeline', () => {
  let dir: string;
  let journal: Journal;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'camroll-pipeline-'));
    journal = openJournal({ dir, key: { baseUrl: 'http://x/v1', partnerId: 'p', userId: 'u' } });
  });
  afterEach(() => {
    journal.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const run = (
    input: Array<MediaMetadata | null>,
    svc: ReturnType<typeof fakeService>,
    extra: {
      full?: boolean;
      signal?: AbortSignal;
      batchSize?: number;
      concurrency?: number;
      onEvent?: (e: PipelineEvent) => void;
    } = {},
  ) =>
    runPipeline({
      input: records(input),
      journal,
      passId: journal.beginPass('full'),
      send: svc.send,
      batchSize: extra.batchSize ?? 3,
      concurrency: extra.concurrency ?? 2,
      full: extra.full ?? false,
      signal: extra.signal ?? new AbortController().signal,
      onEvent: extra.onEvent,
    });

  it('drops scan errors and duplicates, batches, bounds concurrency, counts outcomes', async () => {
    const svc = fakeService({ delayMs: 5 });
    const input = [
      media(1),
      media(2),
      null,
      media(2),
      media(3, { latitude: null }),
      media(4),
      media(5),
      media(6),
      media(7),
      media(8),
    ];
    const { summary, interrupted } = await run(input, svc);
    expect(interrupted).toBe(false);
    expect(svc.calls.map((b) => b.length)).toEqual([3, 3, 2]);
    expect(svc.calls.flat().map((m) => m.id)).toHaveLength(8);
    expect(svc.maxActive()).toBeLessThanOrEqual(2);
    expect(summary.counts).toMatchObject({
      files: 10,
      media: 9,
      scan_errors: 1,
      duplicates: 1,
      sent: 8,
      accepted: 7,
      matched: 4,
      batches: 3,
      failed_batches: 0,
    });
    expect(summary.counts.rejected.missing_coordinates).toBe(1);
  });

  it('takes large batches of events as it takes batches of one, stopping mid-batch on abort', async () => {
    const input = [
      media(1),
      media(2),
      null,
      media(2),
      media(3, { latitude: null }),
      media(4),
      media(5),
      media(6),
      media(7),
      media(8),
    ];
    async function* inBatches(): AsyncGenerator<SyncInput[]> {
      const events: SyncInput[] = [];
      for await (const batch of records(input)) events.push(...batch);
      yield events.slice(0, 4);
      yield events.slice(4, 5);
      yield events.slice(5);
    }
    const svc = fakeService();
    const single = await run(input, fakeService());
    const batched = await runPipeline({
      input: inBatches(),
      journal,
      passId: journal.beginPass('full'),
      send: svc.send,
      batchSize: 3,
      concurrency: 2,
      full: true,
      signal: new AbortController().signal,
    });
    expect(batched.summary.counts).toEqual(single.summary.counts);
    expect(svc.calls.flat().map((m) => m.id)).toEqual([1, 2, 3, 4, 5, 6, 7, 8].map((n) => media(n).id));

    // Aborted while the first batch of events is taken: the rest of that batch is not.
    const stop = new AbortController();
    const seen: PipelineEvent[] = [];
    const stopped = await runPipeline({
      input: inBatches(),
      journal,
      passId: journal.beginPass('full'),
      send: fakeService().send,
      batchSize: 3,
      concurrency: 2,
      full: true,
      signal: stop.signal,
      onEvent: (event) => {
        seen.push(event);
        if (event.type === 'file') stop.abort();
      },
    });
    expect(stopped.interrupted).toBe(true);
    expect(seen.filter((event) => event.type === 'file')).toHaveLength(1);
  });

  it('skips ids the journal answered on the next run, unless full', async () => {
    const input = [media(1), media(2), media(3, { latitude: null })];
    await run(input, fakeService());
    const second = fakeService();
    const again = await run([...input, media(4)], second);
    expect(second.calls.flat().map((m) => m.id)).toEqual([media(4).id]);
    expect(again.summary.counts.skipped_already_sent).toBe(3);
    const full = fakeService();
    await run([...input, media(4)], full, { full: true });
    expect(full.calls.flat()).toHaveLength(4);
  });

  it('re-sends an id whose metadata changed', async () => {
    await run([media(1, { latitude: null })], fakeService());
    const svc = fakeService();
    await run([media(1)], svc);
    expect(svc.calls.flat().map((m) => m.id)).toEqual([media(1).id]);
  });

  it('keeps failed batches pending and reports their items', async () => {
    const events: PipelineEvent[] = [];
    const svc = fakeService({ failWhen: (b) => b.some((m) => m.id === media(4).id) });
    const { summary } = await run(
      [1, 2, 3, 4, 5].map((n) => media(n)),
      svc,
      { onEvent: (e) => events.push(e) },
    );
    expect(summary.counts).toMatchObject({ failed_batches: 1, pending: 2, accepted: 3 });
    expect(
      events.filter((e) => e.type === 'failed').flatMap((e) => (e.type === 'failed' ? e.items.map((i) => i.path) : [])),
    ).toEqual(['p/4.jpg', 'p/5.jpg']);
    expect(journal.counts()).toEqual({ accepted: 3, rejected: 0, pending: 2 });
    const retry = fakeService();
    await run(
      [1, 2, 3, 4, 5].map((n) => media(n)),
      retry,
    );
    expect(retry.calls.flat().map((m) => m.filename)).toEqual(['IMG_4.jpg', 'IMG_5.jpg']);
    expect(journal.counts().pending).toBe(0);
  });

  it('stops on abort: in-flight batches are abandoned, not journaled; pending is what the journal holds', async () => {
    const controller = new AbortController();
    // Aborted once both slots hold a batch that never gets an answer.
    const svc = fakeService({
      delayMs: 10_000,
      onCall: (calls) => calls === 2 && queueMicrotask(() => controller.abort()),
    });
    const input = Array.from({ length: 20 }, (_, i) => media(i + 1));
    const { summary, interrupted } = await run(input, svc, { signal: controller.signal, batchSize: 2, concurrency: 2 });
    expect(interrupted).toBe(true);
    expect(svc.calls).toHaveLength(2);
    expect(summary.counts.sent).toBe(0);
    // The two batches sent; the one waiting for a slot was never sent, so it is not pending.
    expect(summary.counts.pending).toBe(4);
    expect(journal.counts()).toEqual({ accepted: 0, rejected: 0, pending: 4 });
  });

  it('runs 32 batches at once without a MaxListenersExceededWarning', async () => {
    const warnings: Error[] = [];
    const onWarning = (warning: Error): void => {
      warnings.push(warning);
    };
    process.on('warning', onWarning);
    try {
      const svc = fakeService({ delayMs: 5 });
      const { summary } = await run(
        Array.from({ length: 64 }, (_, i) => media(i + 1)),
        svc,
        { batchSize: 1, concurrency: 32 },
      );
      expect(summary.counts.sent).toBe(64);
      expect(svc.maxActive()).toBeGreaterThan(10);
      // Warnings are emitted on the next tick.
      await new Promise((resolve) => setImmediate(resolve));
      expect(warnings.filter((w) => w.name === 'MaxListenersExceededWarning')).toEqual([]);
    } finally {
      process.off('warning', onWarning);
    }
  });
  it('never sends nor journals a file left out by its origin; a later pass that includes it sends it', async () => {
    const origin = {
      origin: 'partner_shared' as const,
      rule: 'takeout_partner_sharing',
      signal: 'Takeout',
      pair: null,
      left_out: 'partner_shared' as const,
    };
    const input = async function* (left: boolean): AsyncGenerator<SyncInput[]> {
      yield [
        { type: 'record', record: { path: 'own.jpg', media: scanned(media(1)), error: null } },
        {
          type: 'record',
          record: {
            path: 'partner.jpg',
            media: scanned(media(2)),
            error: null,
            origin: { ...origin, left_out: left ? origin.left_out : null },
          },
        },
      ];
    };
    const events: PipelineEvent[] = [];
    const svc = fakeService();
    const first = await runPipeline({
      input: input(true),
      journal,
      passId: journal.beginPass('full'),
      send: svc.send,
      batchSize: 10,
      concurrency: 1,
      full: false,
      signal: new AbortController().signal,
      onEvent: (event) => events.push(event),
    });
    expect(svc.calls.flat().map((m) => m.id)).toEqual([media(1).id]);
    expect(first.summary.counts).toMatchObject({ files: 2, media: 2, sent: 1 });
    expect(first.summary.counts.left_out).toEqual({ partner_shared: { files: 1, signals: { Takeout: 1 } } });
    expect(events).toContainEqual({ type: 'left_out', path: 'partner.jpg', id: media(2).id, origin });
    expect(journal.answerFor({ id: media(2).id, fingerprint: Buffer.alloc(32) })).toBe('none');

    const wider = fakeService();
    const second = await runPipeline({
      input: input(false),
      journal,
      passId: journal.beginPass('incremental'),
      send: wider.send,
      batchSize: 10,
      concurrency: 1,
      full: false,
      signal: new AbortController().signal,
    });
    expect(wider.calls.flat().map((m) => m.id)).toEqual([media(2).id]);
    expect(second.summary.counts).toMatchObject({ sent: 1, skipped_already_sent: 1, left_out: {} });
  });
});
