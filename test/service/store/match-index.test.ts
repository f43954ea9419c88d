import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createMatchIndex } from '../../../src/service/store/match-index.js';
import { openStore, type IngestWrite, type Store } from '../../../src/service/store/store.js';
import { tempDir } from '../helpers.js';

describe('match index', () => {
  function fake(rows: Record<string, Array<[string, number]>>) {
    const state = { version: 1, loads: [] as string[] };
    const index = createMatchIndex({
      version: () => state.version,
      load: (userId, limit) => {
        state.loads.push(userId);
        return (rows[userId] ?? []).slice(0, limit);
      },
      maxIds: 3,
    });
    return { index, state };
  }

  it('loads a user once and keeps what the caller writes into it', () => {
    const { index, state } = fake({ u1: [['a', 1]] });
    const first = index.of('u1')!;
    expect([...first]).toEqual([['a', 1]]);
    first.set('b', 2);
    expect([...index.of('u1')!]).toEqual([
      ['a', 1],
      ['b', 2],
    ]);
    expect(state.loads).toEqual(['u1']);
  });

  it('forgets everything when another connection committed (the version moved)', () => {
    const { index, state } = fake({ u1: [['a', 1]] });
    index.of('u1')!.set('local', 9);
    state.version = 2;
    expect([...index.of('u1')!]).toEqual([['a', 1]]);
    expect(state.loads).toEqual(['u1', 'u1']);
  });

  it('forget drops one user', () => {
    const { index, state } = fake({ u1: [['a', 1]], u2: [['b', 2]] });
    index.of('u1');
    index.of('u2');
    index.forget('u1');
    index.of('u1');
    index.of('u2');
    expect(state.loads).toEqual(['u1', 'u2', 'u1']);
  });

  it('keeps no user with more matches than fit, and evicts the least recently used', () => {
    const { index, state } = fake({
      big: [
        ['a', 1],
        ['b', 1],
        ['c', 1],
        ['d', 1],
      ],
      u1: [
        ['a', 1],
        ['b', 1],
      ],
      u2: [['c', 1]],
      u3: [
        ['d', 1],
        ['e', 1],
      ],
    });
    expect(index.of('big')).toBeNull();
    expect(index.of('big')).toBeNull(); // known too big: not loaded again on every batch
    index.of('u1');
    index.of('u2');
    index.of('u1'); // u2 is now the least recently used
    index.of('u3'); // 5 ids > 3: u2 goes, then u1
    index.of('u3');
    index.of('u2');
    expect(state.loads).toEqual(['big', 'u1', 'u2', 'u3', 'u2']);
  });

  it('stops keeping a user whose matches grew past what fits', () => {
    const { index, state } = fake({ u1: [['a', 1]] });
    const kept = index.of('u1')!;
    kept.set('b', 1).set('c', 1).set('d', 1);
    expect(index.of('u1')).toBeNull();
    expect(index.of('u1')).toBeNull();
    state.version = 2; // still too big after another connection's commit: never loaded again
    expect(index.of('u1')).toBeNull();
    expect(state.loads).toEqual(['u1']);
  });
});

describe('sqlite store: earlier matches of re-sent items, with the in-memory index', () => {
  const stores: Store[] = [];
  const dirs: Array<{ cleanup(): void }> = [];
  afterEach(async () => {
    while (stores.length > 0) await stores.pop()!.close();
    while (dirs.length > 0) dirs.pop()!.cleanup();
  });

  const scope = { partnerId: 'acme', environment: 'sandbox' as const };
  const starts = new Map([
    [1, Date.parse('2024-07-13T00:00:00Z')],
    [2, Date.parse('2023-12-09T08:30:00Z')],
  ]);
  const matched = (id: string, eventId: number) => ({
    mediaId: id,
    stored: {
      media_id: id,
      event_id: eventId,
      taken_at: '2024-07-13T00:30:00Z',
      taken_at_ms: starts.get(eventId)! + 1_800_000,
      media_type: 'photo' as const,
      thumbnail_url: null,
    },
  });
  const unmatched = (id: string) => ({ mediaId: id, stored: null });
  const write = (items: IngestWrite['items'], readBack: number[] = []): IngestWrite => ({
    items,
    startsOf: (eventId) => starts.get(eventId) ?? null,
    nowMs: Date.parse('2026-01-01T00:00:00Z'),
    readBack,
  });

  async function open(options: { maxIndexedMatches?: number; path?: string } = {}) {
    let path = options.path;
    if (path === undefined) {
      const dir = tempDir();
      dirs.push(dir);
      path = join(dir.dir, 'service.db');
    }
    const store = openStore({ path, maxIndexedMatches: options.maxIndexedMatches });
    stores.push(store);
    return { store, path };
  }

  async function eventsOf(store: Store, userId: string): Promise<Array<[number, number]>> {
    const page = await store.eventsPage(userId, { after: null, limit: 100, includeMedia: false, shown: () => true });
    return page.rows.map((row) => [row.event_id, row.media_count]);
  }

  for (const [label, maxIndexedMatches] of [
    ['kept in memory', undefined],
    ['too many to keep (asked of the database)', 0],
  ] as const) {
    it(`moves and drops earlier matches: ${label}`, async () => {
      const { store } = await open({ maxIndexedMatches });
      const { user } = await store.createUser({ email: 'a@example.com' }, scope, '2026-01-01T00:00:00Z');
      await store.applyIngest(user.id, write([matched('a', 1), matched('b', 1), unmatched('c')]));
      expect(await eventsOf(store, user.id)).toEqual([[1, 2]]);

      // b moves to event 2, a no longer matches anything: event 1 is gone.
      const applied = await store.applyIngest(user.id, write([unmatched('a'), matched('b', 2)], [2]));
      expect(await eventsOf(store, user.id)).toEqual([[2, 1]]);
      expect(applied.media.get(2)?.map((m) => m.media_id)).toEqual(['b']);

      await store.applyIngest(user.id, write([unmatched('b'), unmatched('c')]));
      expect(await eventsOf(store, user.id)).toEqual([]);
    });
  }

  it("sees another connection's matches (a second serve on the same file) before deciding", async () => {
    const { store: first, path } = await open();
    const { user } = await first.createUser({ email: 'b@example.com' }, scope, '2026-01-01T00:00:00Z');
    // The first connection fills its index: the user has no match yet.
    await first.applyIngest(user.id, write([unmatched('x')]));

    const { store: second } = await open({ path });
    await second.applyIngest(user.id, write([matched('shared', 1)]));
    expect(await eventsOf(first, user.id)).toEqual([[1, 1]]);

    // The same asset re-sent through the first connection, now matching nothing: its
    // earlier match (written by the other connection) must go, and the event with it.
    await first.applyIngest(user.id, write([unmatched('shared')]));
    expect(await eventsOf(second, user.id)).toEqual([]);
  });

  it('a batch that fails inside its transaction leaves the index in step with the database', async () => {
    const { store } = await open();
    const { user } = await store.createUser({ email: 'c@example.com' }, scope, '2026-01-01T00:00:00Z');
    await store.applyIngest(user.id, write([matched('a', 1)]));
    const failing: IngestWrite = {
      ...write([matched('b', 2), unmatched('a')]),
      startsOf: (eventId) => {
        if (eventId === 2) throw new Error('catalog lookup failed');
        return starts.get(eventId) ?? null;
      },
    };
    await expect(store.applyIngest(user.id, failing)).rejects.toThrow('catalog lookup failed');
    // Rolled back: a is still matched, b never was.
    expect(await eventsOf(store, user.id)).toEqual([[1, 1]]);
    await store.applyIngest(user.id, write([unmatched('a'), unmatched('b')]));
    expect(await eventsOf(store, user.id)).toEqual([]);
  });
});
