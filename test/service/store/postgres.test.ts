import { afterAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { openPostgresStore } from '../../../src/service/store/postgres.js';
import type { Store, StoredMedia } from '../../../src/service/store/types.js';
import { testSchema } from '../helpers.js';

const url = process.env.CAMROLL_TEST_DATABASE_URL;
const scope = { partnerId: 'acme', environment: 'sandbox' as const };
const media = (id: string, eventId: number, minute: number): StoredMedia => ({
  media_id: id,
  event_id: eventId,
  taken_at: `2024-07-13T00:${String(minute).padStart(2, '0')}:00Z`,
  taken_at_ms: Date.parse('2024-07-13T00:00:00Z') + minute * 60_000,
  media_type: 'photo',
  thumbnail_url: null,
});
const startsOf = (eventId: number): number => eventId * 1000;

describe.skipIf(!url)(
  url
    ? 'PostgreSQL store: guarantees across instances'
    : 'PostgreSQL store (skipped: set CAMROLL_TEST_DATABASE_URL, e.g. from .ci/postgres.sh)',
  () => {
    const opened: Store[] = [];
    /** Several "instances": separate pools on one schema. */
    async function instances(n: number, schema = testSchema()): Promise<Store[]> {
      const stores = await Promise.all(
        Array.from({ length: n }, () => openPostgresStore({ url: url!, schema, poolSize: 4 })),
      );
      opened.push(...stores);
      return stores;
    }
    afterAll(async () => {
      for (const store of opened) await store.close();
    });

    it('migrates once when instances start together', async () => {
      const schema = testSchema();
      await instances(4, schema);
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        const rows = (await client.query(`SELECT version FROM "${schema}".camroll_schema`)).rows;
        expect(rows).toEqual([{ version: 1 }]);
      } finally {
        await client.end();
      }
    });

    it('shares one cursor secret between instances', async () => {
      const [a, b] = await instances(2);
      const [x, y] = await Promise.all([a!.cursorSecret(), b!.cursorSecret()]);
      expect(x.length).toBe(32);
      expect(y.equals(x)).toBe(true);
    });

    it('creates one user for one e-mail under a race, and drops a phone number in use', async () => {
      const stores = await instances(3);
      const results = await Promise.all(
        Array.from({ length: 12 }, (_, i) =>
          stores[i % 3]!.createUser({ email: 'race@example.com' }, scope, '2025-01-01T00:00:00.000Z'),
        ),
      );
      expect(new Set(results.map((r) => r.user.id)).size).toBe(1);
      expect(results.filter((r) => !r.existing)).toHaveLength(1);
      await stores[0]!.createUser(
        { email: 'p1@example.com', phoneNumber: '+1 555' },
        scope,
        '2025-01-01T00:00:00.000Z',
      );
      const second = await stores[1]!.createUser(
        { email: 'p2@example.com', phoneNumber: '+1 555' },
        scope,
        '2025-01-01T00:00:00.000Z',
      );
      expect(second.existing).toBe(false);
      expect((await stores[2]!.findUser(second.user.id, scope))?.phone_number).toBeNull();
    });

    it('applies concurrent batches of one user through two instances with no duplicate and exact counts', async () => {
      const [a, b] = await instances(2);
      const { user } = await a!.createUser({ email: 'batches@example.com' }, scope, '2025-01-01T00:00:00.000Z');
      // Overlapping ids: every batch re-sends m0..m9 and adds its own; events 1 and 2 alternate.
      const batch = (k: number) => ({
        items: [
          ...Array.from({ length: 10 }, (_, i) => `m${i}`),
          ...Array.from({ length: 10 }, (_, i) => `b${k}-${i}`),
        ].map((id, i) => ({
          mediaId: id,
          stored: media(id, 1 + ((i + k) % 2), i),
        })),
        startsOf,
        nowMs: 1_000 + k,
        readBack: [1, 2],
      });
      await Promise.all(Array.from({ length: 16 }, (_, k) => (k % 2 === 0 ? a! : b!).applyIngest(user.id, batch(k))));
      const page = await a!.eventsPage(user.id, { after: null, limit: 10, includeMedia: true, shown: () => true });
      const all = [...page.media!.values()].flat().map((m) => m.media_id);
      expect(all.length).toBe(10 + 16 * 10);
      expect(new Set(all).size).toBe(all.length);
      for (const row of page.rows) expect(row.media_count).toBe(page.media!.get(row.event_id)!.length);
      expect((await b!.history(user.id)).lastSyncAtMs).toBe(1_015);
    });

    it('never moves last_sync_at backwards, whichever instance writes', async () => {
      const [a, b] = await instances(2);
      const { user } = await a!.createUser({ email: 'clock@example.com' }, scope, '2025-01-01T00:00:00.000Z');
      const one = (nowMs: number) => ({ items: [{ mediaId: 'x', stored: null }], startsOf, nowMs, readBack: [] });
      expect((await a!.applyIngest(user.id, one(5_000))).lastSyncAtMs).toBe(5_000);
      expect((await b!.applyIngest(user.id, one(4_000))).lastSyncAtMs).toBe(5_000);
      expect(await b!.markSynced(user.id, 3_000)).toBe(5_000);
      expect(await a!.history(user.id)).toMatchObject({ hasSynced: true, lastSyncAtMs: 5_000 });
    });

    it('keeps any asset id and thumbnail string exactly, NUL included, in byte order like SQLite', async () => {
      const [a] = await instances(1);
      const { user } = await a!.createUser(
        { email: 'bytes@example.com', firstName: 'a\u0000b' },
        scope,
        '2025-01-01T00:00:00.000Z',
      );
      const ids = ['z', 'a\u0000b', 'É', 'a'];
      const applied = await a!.applyIngest(user.id, {
        items: ids.map((id) => ({ mediaId: id, stored: { ...media(id, 3, 0), thumbnail_url: `x\u0000${id}` } })),
        startsOf,
        nowMs: 1,
        readBack: [3],
      });
      const got = applied.media.get(3)!;
      expect(got.map((m) => m.media_id)).toEqual(['a', 'a\u0000b', 'z', 'É']);
      expect(got.map((m) => m.thumbnail_url)).toEqual(['x\u0000a', 'x\u0000a\u0000b', 'x\u0000z', 'x\u0000É']);
    });
  },
);
