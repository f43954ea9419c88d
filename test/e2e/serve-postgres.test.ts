import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ANCHOR_CATALOG_JSON } from '../service/helpers.js';
import { tempHome } from './helpers/camroll.js';
import { startServe, type ServeHandle } from './helpers/serve.js';
import { freshDatabaseUrl } from './helpers/store.js';

const url = process.env.CAMROLL_TEST_DATABASE_URL;
const KEY = 'sk_test_team_instances';
/** Venue centres and event start instants (UTC) of anchor events 1, 3 and 5. */
const EVENTS = [
  { id: 1, lat: 40.7505, lon: -73.9934, startUtc: '2024-07-13T00:00:00Z' },
  { id: 3, lat: 51.556, lon: -0.2795, startUtc: '2024-03-30T20:00:00Z' },
  { id: 5, lat: -23.5275, lon: -46.6783, startUtc: '2024-11-17T00:00:00Z' },
];

interface Reply {
  status: number;
  json: any;
}
async function call(base: string, method: 'GET' | 'POST', path: string, body?: unknown): Promise<Reply> {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { 'x-partner-api-key': KEY, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, json: await res.json() };
}

/** 200 items for batch `k`: each on one of three events, 20 of them re-sent by every batch. */
function batch(k: number): { id: string; taken_at: string; latitude: number; longitude: number }[] {
  return Array.from({ length: 200 }, (_, i) => {
    const event = EVENTS[(k + i) % EVENTS.length]!;
    const id = i < 20 ? `shared-${i}` : `b${k}-${i}`;
    return {
      id,
      taken_at: new Date(Date.parse(event.startUtc) + (i % 60) * 60_000).toISOString(),
      latitude: event.lat,
      longitude: event.lon,
    };
  });
}

describe.skipIf(!url)(
  url
    ? 'two serve instances on one PostgreSQL database'
    : 'two serve instances on one PostgreSQL database (skipped: set CAMROLL_TEST_DATABASE_URL)',
  () => {
    const handles: ServeHandle[] = [];
    const home = tempHome('camroll-team-');
    afterAll(async () => {
      for (const handle of handles)
        if (handle.child.exitCode === null && handle.child.signalCode === null) await handle.stop();
      rmSync(home.dir, { recursive: true, force: true });
    });

    it('keeps every acknowledged match exactly once through concurrent batches and a kill -9 of one instance', async () => {
      const catalog = join(home.dir, 'catalog.json');
      writeFileSync(catalog, JSON.stringify(ANCHOR_CATALOG_JSON));
      const databaseUrl = freshDatabaseUrl();
      const env = { ...home.env, CAMROLL_API_KEY: KEY };
      const start = async () => {
        const handle = await startServe({ env, databaseUrl, args: ['--catalog', catalog] });
        handles.push(handle);
        return handle;
      };
      const [a, b] = await Promise.all([start(), start()]);

      // One user, whichever instance is asked (idempotent on the e-mail across instances).
      const created = await Promise.all(
        [a!, b!].map((h) => call(h.baseUrl, 'POST', '/users', { email: 'team@example.com' })),
      );
      expect(created.map((r) => r.status)).toEqual([201, 201]);
      const userId = created[0]!.json.user_id as string;
      expect(created[1]!.json.user_id).toBe(userId);

      const acknowledged = new Set<string>();
      const send = async (h: ServeHandle, k: number): Promise<boolean> => {
        try {
          const reply = await call(h.baseUrl, 'POST', `/users/${userId}/media`, { media: batch(k) });
          if (reply.status !== 200) return false;
          for (const match of reply.json.matches as { media_id: string; matched: boolean }[])
            if (match.matched) acknowledged.add(match.media_id);
          return true;
        } catch {
          return false; // the instance died with this batch in flight: not acknowledged
        }
      };
      // Both instances ingest at once; b is killed while its next batches are in flight.
      const first = await Promise.all(Array.from({ length: 8 }, (_, k) => send(k % 2 === 0 ? a! : b!, k)));
      expect(first.every(Boolean)).toBe(true);
      const inFlight = Array.from({ length: 6 }, (_, k) => send(b!, 100 + k));
      const alongside = Array.from({ length: 6 }, (_, k) => send(a!, 200 + k));
      b!.child.kill('SIGKILL');
      await Promise.all([...inFlight, ...alongside]);
      expect((await Promise.all(alongside)).every(Boolean)).toBe(true);

      // A fresh instance sees exactly what was acknowledged, once each, with exact counts.
      const c = await start();
      const seen: string[] = [];
      let cursor: string | null = null;
      let total = -1;
      // Pages alternate instances: a cursor from one is valid on the other (shared secret).
      for (let page = 0; page < 10; page += 1) {
        const base = page % 2 === 0 ? a!.baseUrl : c.baseUrl;
        const reply: Reply = await call(
          base,
          'GET',
          `/users/${userId}/events?limit=1${cursor ? `&cursor=${cursor}` : ''}`,
        );
        expect(reply.status).toBe(200);
        total = reply.json.total;
        for (const event of reply.json.events) {
          expect(event.media_count).toBe(event.media.length);
          for (const m of event.media) seen.push(m.media_id);
        }
        cursor = reply.json.next_cursor;
        if (!reply.json.has_more) break;
      }
      expect(total).toBe(3);
      expect(new Set(seen).size).toBe(seen.length);
      for (const id of acknowledged) expect(seen).toContain(id);
      // Stats read the same rows on the new instance.
      const stats = await call(c.baseUrl, 'GET', `/users/${userId}/stats`);
      expect(stats.json.total_events).toBe(3);
    });
  },
);
