import { statSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { request } from 'undici';
import { describe, expect, it } from 'vitest';
import { collect, spawnCamroll } from './helpers/camroll.js';
import { useTempHomes } from './helpers/temp-homes.js';
import { startServe } from './helpers/serve.js';
import { ANCHOR_CATALOG_JSON, itemAt } from '../service/helpers.js';
import { paths } from '../../src/contract/index.js';

const KEY = 'sk_test_e2e_serve_key';

async function call(baseUrl: string, method: 'GET' | 'POST', path: string, body?: unknown, key = KEY) {
  const res = await request(`${baseUrl}${path}`, {
    method,
    headers: { 'x-partner-api-key': key, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.statusCode, json: (await res.body.json()) as any };
}

describe('camroll serve (real binary)', () => {
  // Every test's home (databases, catalogs, the generated key) is removed after the file.
  const tempHome = useTempHomes();

  it('prints a generated local key once, reuses it, and exits 0 on SIGTERM', async () => {
    const home = tempHome();
    const db = join(home.dir, 'service.db');
    const first = await startServe({ env: home.env, db });
    expect(first.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);
    expect(first.baseUrl).not.toMatch(/:0\/v1$/);
    const ping = await request(`${first.baseUrl}/ping`);
    expect(await ping.body.json()).toEqual({ status: 'ok' });
    const result = await first.stop();
    expect(result.code).toBe(0);
    const key = /local key: (\S+)/.exec(result.stdout)?.[1];
    expect(key).toMatch(/^sk_local_/);
    const keyFile = join(home.env.XDG_DATA_HOME!, 'camroll', 'local-key');
    expect(statSync(keyFile).mode & 0o777).toBe(0o600);
    expect(result.stderr).not.toContain(key!);

    const second = await startServe({ env: home.env, db });
    const health = await call(second.baseUrl, 'GET', '/health', undefined, key);
    expect(health.json).toMatchObject({ partner_id: 'local', environment: 'sandbox' });
    const again = await second.stop();
    expect(again.stdout).toContain(`local key: ${key}`);
    expect(again.code).toBe(0);

    const fromEnv = await startServe({ env: { ...home.env, CAMROLL_API_KEY: KEY }, db });
    const out = await fromEnv.stop();
    expect(out.stdout).toContain('local key: (from CAMROLL_API_KEY)');
    expect(out.stdout).not.toContain(KEY);
  });

  it('stops start-up on a malformed catalog, naming the bad entry (exit 1)', async () => {
    const home = tempHome();
    const catalog = join(home.dir, 'bad.json');
    writeFileSync(
      catalog,
      JSON.stringify({
        ...ANCHOR_CATALOG_JSON,
        venues: [...ANCHOR_CATALOG_JSON.venues, { id: 99, name: 'Nowhere', latitude: 200 }],
      }),
    );
    const result = await collect(
      spawnCamroll(['serve', '--port', '0', '--db', ':memory:', '--catalog', catalog], { env: home.env }),
    );
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/venues/);
    expect(result.stdout).not.toContain('listening on');
  });

  it('exits 1 with a message when the port is taken, and refuses a database from a newer camroll', async () => {
    const home = tempHome();
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    try {
      const port = String((taken.address() as AddressInfo).port);
      const busy = await collect(spawnCamroll(['serve', '--port', port, '--db', ':memory:'], { env: home.env }));
      expect(busy.code).toBe(1);
      expect(busy.stderr).toContain(`port ${port} is already in use [address_in_use]`);
      expect(busy.stderr).not.toContain('a bug in camroll');
      expect(busy.stdout).not.toContain('listening on');
    } finally {
      await new Promise((resolve) => taken.close(resolve));
    }

    const db = join(home.dir, 'newer.db');
    const newer = new Database(db);
    newer.pragma('user_version = 99');
    newer.close();
    const refused = await collect(spawnCamroll(['serve', '--port', '0', '--db', db], { env: home.env }));
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('newer than this camroll');
    expect(refused.stdout).not.toContain('listening on');
  });

  it('survives SIGKILL in the middle of concurrent ingest with a consistent database', async () => {
    const home = tempHome();
    const db = join(home.dir, 'kill.db');
    const catalog = join(home.dir, 'catalog.json');
    writeFileSync(catalog, JSON.stringify(ANCHOR_CATALOG_JSON));
    const env = { ...home.env, CAMROLL_API_KEY: KEY };
    // With an ingest thread: a batch planned there still commits whole or not at all.
    const server = await startServe({ env, db, args: ['--catalog', catalog, '--ingest-threads', '1'] });
    const user = (await call(server.baseUrl, 'POST', '/users', { email: 'kill@example.com' })).json.user_id as string;
    const batch = (n: number) =>
      Array.from({ length: 200 }, (_, j) =>
        // 20 of 200 land on event 1 (venue 1) or event 4 (Tokyo), the rest on nothing.
        j % 10 === 0
          ? j % 20 === 0
            ? itemAt(`k${n}-${j}`, 1, '2024-07-13T00:00:00Z', j % 60)
            : itemAt(`k${n}-${j}`, 4, '2022-08-20T09:00:00Z', j % 60)
          : itemAt(`k${n}-${j}`, 2, '2019-01-01T00:00:00Z'),
      );
    let answered = 0;
    let enough: () => void = () => undefined;
    const twelveAnswered = new Promise<void>((resolve) => (enough = resolve));
    const inFlight: Promise<unknown>[] = [];
    for (let client = 0; client < 4; client += 1) {
      inFlight.push(
        (async () => {
          for (let n = client; n < 400; n += 4) {
            const res = await call(server.baseUrl, 'POST', `/users/${user}/media`, { media: batch(n) });
            expect(res.status).toBe(200);
            answered += 1;
            if (answered === 12) enough();
          }
        })().catch(() => undefined),
      );
    }
    await twelveAnswered;
    server.child.kill('SIGKILL');
    await Promise.all(inFlight);
    expect(answered).toBeGreaterThanOrEqual(12);

    const check = new Database(db);
    expect(check.pragma('integrity_check', { simple: true })).toBe('ok');
    const counts = check.prepare('SELECT event_id, media_count FROM user_events WHERE user_id = ?').all(user) as Array<{
      event_id: number;
      media_count: number;
    }>;
    const actual = check
      .prepare('SELECT event_id, COUNT(*) AS n FROM matches WHERE user_id = ? GROUP BY event_id')
      .all(user) as Array<{ event_id: number; n: number }>;
    expect(new Map(counts.map((c) => [c.event_id, c.media_count]))).toEqual(
      new Map(actual.map((a) => [a.event_id, a.n])),
    );
    // Batches commit whole: every stored batch holds all 20 of its matched items.
    const perBatch = check
      .prepare(`SELECT substr(media_id, 1, instr(media_id, '-')) AS b, COUNT(*) AS n FROM matches GROUP BY b`)
      .all() as Array<{ n: number }>;
    expect(perBatch.length).toBeGreaterThanOrEqual(12);
    expect(perBatch.every((row) => row.n === 20)).toBe(true);
    check.close();

    const reopened = await startServe({ env, db, args: ['--catalog', catalog] });
    const page = await call(reopened.baseUrl, 'GET', `/users/${user}/events`);
    expect(page.json.total).toBe(2);
    expect((await reopened.stop()).code).toBe(0);
  });

  it('answers ingest the same with an ingest thread as without, and exits 0 on SIGTERM either way', async () => {
    const home = tempHome();
    const catalog = join(home.dir, 'catalog.json');
    writeFileSync(catalog, JSON.stringify(ANCHOR_CATALOG_JSON));
    const env = { ...home.env, CAMROLL_API_KEY: KEY };
    const bodies = [
      JSON.stringify({
        media: [itemAt('a', 1, '2024-07-13T00:00:00Z'), { id: 'b' }, itemAt('c', 2, '2019-01-01T00:00:00Z')],
      }),
      JSON.stringify({
        media: Array.from({ length: 200 }, (_, i) => itemAt(`big-${i}`, 1, '2024-07-13T00:00:00Z', i % 60)),
      }),
      '{"media": [',
    ];
    const answers = async (threads: string) => {
      const server = await startServe({
        env,
        db: ':memory:',
        args: ['--catalog', catalog, '--ingest-threads', threads],
      });
      const user = (await call(server.baseUrl, 'POST', '/users', { email: 'threads@example.com' })).json
        .user_id as string;
      const out: Array<{ status: number; json: unknown }> = [];
      for (const body of bodies) {
        const res = await request(`${server.baseUrl}/users/${user}/media`, {
          method: 'POST',
          headers: { 'x-partner-api-key': KEY, 'content-type': 'application/json' },
          body,
        });
        const json = (await res.body.json()) as Record<string, unknown>;
        // The real clock differs between the two runs; everything else must not.
        if (res.statusCode === 200) {
          expect(Number.isFinite(Date.parse(json.last_sync_at as string))).toBe(true);
          delete json.last_sync_at;
        }
        out.push({ status: res.statusCode, json });
      }
      const stopped = await server.stop();
      expect(stopped.code).toBe(0);
      expect(stopped.stderr).toContain('stopped');
      return out;
    };
    const threaded = await answers('1');
    expect(threaded.map((answer) => answer.status)).toEqual([200, 200, 400]);
    expect(threaded[0]!.json).toMatchObject({
      accepted: 2,
      matched: 1,
      rejected: [{ id: 'b', reason: 'missing_coordinates' }],
    });
    expect(threaded[1]!.json).toMatchObject({ accepted: 200, matched: 200 });
    expect(threaded).toEqual(await answers('0'));
  });

  it('camroll openapi prints an OpenAPI 3.1 document of the contract', async () => {
    const home = tempHome();
    const result = await collect(spawnCamroll(['openapi'], { env: home.env }));
    expect(result.code).toBe(0);
    const doc = JSON.parse(result.stdout);
    expect(doc.openapi).toBe('3.1.0');
    // Every path of the contract, and nothing else, templated as the client builds them.
    const USER = '__user__';
    const expected = Object.values(paths).map((build) => build(USER).replace(USER, '{user_id}'));
    expect(Object.keys(doc.paths).sort()).toEqual([...new Set(expected)].sort());
    expect(doc.components.schemas.IngestResponse).toBeDefined();
  });
});
