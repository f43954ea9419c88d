import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ScannedMedia } from '../../src/scan/types.js';
import { acceptingClient } from '../helpers/sync-client.js';
import type { SyncInput } from '../../src/sync/pipeline.js';
import { runSync, type SyncClient, type SyncRunOptions } from '../../src/sync/run.js';

const USER = '7d9f6a52-1c3b-4f0e-9a1d-2b8c4e6f0a11';

const media = (n: number): ScannedMedia => ({
  id: `sha256:${n.toString(16).padStart(64, '0')}`,
  taken_at: '2024-07-13T00:30:00.000Z',
  latitude: 40.75,
  longitude: -73.99,
  media_type: 'photo',
  filename: `IMG_${n}.jpg`,
  duration_seconds: null,
  device_make: null,
  device_model: null,
  device_lens_model: null,
});

/** The scanner's events for `count` files, one event a batch. */
async function* records(count: number): AsyncGenerator<SyncInput[]> {
  for (let n = 1; n <= count; n += 1)
    yield [{ type: 'record', record: { path: `p/${n}.jpg`, media: media(n), error: null } }];
}

/** A fake service that accepts everything; `lastSyncAt` is what its stats say before a run. */
function fakeClient(state: { lastSyncAt: string | null }): SyncClient & { sent: number } {
  const client = Object.assign(
    acceptingClient({
      onIngest: (batch) => {
        client.sent += batch.length;
      },
      stats: () => ({ has_synced: state.lastSyncAt !== null, last_sync_at: state.lastSyncAt }),
    }),
    { sent: 0 },
  );
  return client;
}

describe('runSync', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'camroll-run-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const options = (client: SyncClient, notices: string[]): SyncRunOptions => ({
    identity: { userId: USER },
    scan: () => records(5),
    batchSize: 2,
    concurrency: 2,
    full: false,
    signal: new AbortController().signal,
    journalDir: dir,
    connection: {
      client,
      target: { kind: 'remote', baseUrl: 'https://api.example.com/v1', identity: 'https://api.example.com/v1' },
      users: { recall: () => null, remember: () => undefined },
    },
    notice: (line) => notices.push(line),
  });

  it('asks for the stats while the events are paged, and returns both', async () => {
    const client = fakeClient({ lastSyncAt: null });
    const calls: string[] = [];
    let statsCalls = 0;
    let statsAsked: () => void = () => undefined;
    const asked = new Promise<void>((resolve) => (statsAsked = resolve));
    const stats = client.stats;
    client.stats = async (...args) => {
      statsCalls += 1;
      if (statsCalls > 1) {
        calls.push('stats');
        statsAsked();
      }
      return stats(...args);
    };
    const event = { id: 1, name: 'Gig', starts_at_local: '2024-07-12T20:00:00' };
    client.allEvents = async function* () {
      calls.push('events page 1');
      // The second page waits for the stats request: it must be made while the pages are read.
      await asked;
      yield event;
      calls.push('events page 2');
    };
    const result = await runSync(options(client, []));
    expect(calls).toEqual(['events page 1', 'stats', 'events page 2']);
    expect(result.events).toEqual([event]);
    expect(result.stats).not.toBeNull();
  });

  it('skips what the journal holds, and starts over when the service has received nothing for the user', async () => {
    const state = { lastSyncAt: null as string | null };
    const first = fakeClient(state);
    expect(await runSync(options(first, []))).toMatchObject({
      outcome: 'ok',
      pass: 'full',
      sent: 5,
      skipped_already_sent: 0,
    });

    state.lastSyncAt = '2024-01-01T00:00:00.000Z';
    const second = fakeClient(state);
    const notices: string[] = [];
    expect(await runSync(options(second, notices))).toMatchObject({
      outcome: 'ok',
      pass: 'incremental',
      sent: 0,
      skipped_already_sent: 5,
    });
    expect(notices.join('\n')).not.toMatch(/starting over|no local sync journal/);

    // The service's database was reset: its stats say it never received anything.
    state.lastSyncAt = null;
    const third = fakeClient(state);
    const after: string[] = [];
    expect(await runSync(options(third, after))).toMatchObject({
      outcome: 'ok',
      pass: 'full',
      sent: 5,
      skipped_already_sent: 0,
    });
    expect(third.sent).toBe(5);
    expect(after.join('\n')).toMatch(/does not match the service .*starting over/);
  });

  it('does not call sync-complete when a folder could not be read, and says why', async () => {
    let completed = 0;
    const state = { lastSyncAt: null as string | null };
    const client: SyncClient = {
      ...fakeClient(state),
      syncComplete: async () => {
        completed += 1;
        return { has_synced: true, last_sync_at: '2024-01-01T00:00:00.000Z' };
      },
    };
    async function* withUnreadableFolder(): AsyncGenerator<SyncInput[]> {
      yield* records(3);
      yield [{ type: 'warning', code: 'unreadable_folder', path: 'NAS/2019', message: 'input/output error (EIO)' }];
    }
    const result = await runSync({ ...options(client, []), scan: () => withUnreadableFolder() });
    expect(result).toMatchObject({
      outcome: 'not_examined',
      sync_complete: false,
      sent: 3,
      not_examined: '1 folder or file could not be read',
    });
    expect(completed).toBe(0);
    // What was sent is journaled: the next run skips it once the folder reads again.
    state.lastSyncAt = '2024-01-01T00:00:00.000Z';
    const again = await runSync({ ...options(client, []), scan: () => records(3) });
    expect(again).toMatchObject({ outcome: 'ok', sync_complete: true, sent: 0 });
    expect(completed).toBe(1);
  });

  it('does not call sync-complete for an export given with parts missing, unless --allow-missing-parts', async () => {
    let completed = 0;
    const state = { lastSyncAt: null as string | null };
    const client: SyncClient = {
      ...fakeClient(state),
      syncComplete: async () => {
        completed += 1;
        return { has_synced: true, last_sync_at: '2024-01-01T00:00:00.000Z' };
      },
    };
    const gap = 'takeout-20250101T000000Z: parts 002 and 004 missing';
    async function* withGap(): AsyncGenerator<SyncInput[]> {
      yield [
        {
          type: 'warning',
          code: 'missing_parts',
          path: 'takeout-20250101T000000Z',
          message: 'parts 002 and 004 missing',
        },
      ];
      yield* records(3);
    }
    const result = await runSync({ ...options(client, []), scan: () => withGap() });
    expect(result).toMatchObject({ outcome: 'not_examined', sync_complete: false, sent: 3 });
    expect(result.not_examined).toContain(gap);
    expect(result.not_examined).toContain('--allow-missing-parts');
    expect(completed).toBe(0);
    const allowed = await runSync({ ...options(client, []), allowMissingParts: true, scan: () => withGap() });
    expect(allowed).toMatchObject({ outcome: 'ok', sync_complete: true });
    expect(completed).toBe(1);
  });

  it('afterPass (--watch) sends changed files in the same journal: what was answered is skipped, no sync-complete', async () => {
    let completed = 0;
    const state = { lastSyncAt: null as string | null };
    const base = fakeClient(state);
    const client: SyncClient = {
      ...base,
      syncComplete: async () => {
        completed += 1;
        return { has_synced: true, last_sync_at: '2024-01-01T00:00:00.000Z' };
      },
    };
    const batches: Array<{ sent: number; skipped: number; interrupted: boolean }> = [];
    let passOutcome: string | null = null;
    const result = await runSync({
      ...options(client, []),
      scan: () => records(3),
      afterPass: async (pass, changes) => {
        passOutcome = pass.outcome;
        // Two files changed: one the pass sent (same bytes, same metadata), one new.
        const first = await changes.send(async function* (): AsyncGenerator<SyncInput[]> {
          yield [
            { type: 'record', record: { path: 'p/2.jpg', media: media(2), error: null } },
            { type: 'record', record: { path: 'p/9.jpg', media: media(9), error: null } },
          ];
        }, {});
        batches.push({
          sent: first.counts.sent,
          skipped: first.counts.skipped_already_sent,
          interrupted: first.interrupted,
        });
        // The new file again (touched): answered by the batch before, so skipped.
        const second = await changes.send(async function* (): AsyncGenerator<SyncInput[]> {
          yield [{ type: 'record', record: { path: 'p/9.jpg', media: media(9), error: null } }];
        }, {});
        batches.push({
          sent: second.counts.sent,
          skipped: second.counts.skipped_already_sent,
          interrupted: second.interrupted,
        });
      },
    });
    expect(passOutcome).toBe('ok');
    expect(result).toMatchObject({ outcome: 'ok', sent: 3, sync_complete: true });
    expect(batches).toEqual([
      { sent: 1, skipped: 1, interrupted: false },
      { sent: 0, skipped: 1, interrupted: false },
    ]);
    expect(completed).toBe(1);
    expect(base.sent).toBe(4);
  });

  it('does not call afterPass when the pass was interrupted', async () => {
    const controller = new AbortController();
    let called = false;
    async function* stopsMidway(): AsyncGenerator<SyncInput[]> {
      yield* records(2);
      controller.abort();
      yield* records(2);
    }
    const result = await runSync({
      ...options(fakeClient({ lastSyncAt: null }), []),
      signal: controller.signal,
      scan: () => stopsMidway(),
      afterPass: async () => {
        called = true;
      },
    });
    expect(result.outcome).toBe('interrupted');
    expect(called).toBe(false);
  });
});
