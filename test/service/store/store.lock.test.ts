import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ACME, createUser, itemAt, makeApp, tempDir, type TestApp } from '../helpers.js';

/** A second process that holds SQLite's write lock (BEGIN IMMEDIATE) until its stdin closes. */
async function holdWriteLock(dbPath: string): Promise<ChildProcess> {
  const script = `
    const Database = require('better-sqlite3');
    const db = new Database(process.argv[1]);
    db.exec('BEGIN IMMEDIATE');
    process.stdout.write('locked\\n');
    process.stdin.resume();
    process.stdin.on('end', () => { db.exec('COMMIT'); db.close(); });
  `;
  const child = spawn(process.execPath, ['-e', script, dbPath], {
    cwd: process.cwd(),
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  await new Promise<void>((resolve, reject) => {
    child.stdout!.once('data', () => resolve());
    child.once('exit', (code) => reject(new Error(`lock holder exited with ${code}`)));
  });
  return child;
}

const release = (child: ChildProcess): Promise<void> =>
  new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.stdin!.end();
  });

describe('sqlite store under another process holding the write lock', () => {
  let cleanup: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const step of cleanup.reverse()) await step();
    cleanup = [];
  });

  async function setUp(budgetMs: number): Promise<{ t: TestApp; dbPath: string; userId: string }> {
    const dir = tempDir();
    const dbPath = join(dir.dir, 'service.db');
    const t = await makeApp({ dbPath, retry: { budgetMs } });
    cleanup.push(async () => {
      await t.close();
      dir.cleanup();
    });
    return { t, dbPath, userId: await createUser(t.app, ACME, 'locked@example.com') };
  }

  const ingest = (t: TestApp, userId: string) =>
    t.app.inject({
      method: 'POST',
      url: `/v1/users/${userId}/media`,
      headers: { 'x-partner-api-key': ACME },
      payload: { media: [itemAt('a1', 1, '2024-07-13T00:00:00Z', 30)] },
    });

  it('keeps answering /ping while a write waits, then answers 503 service_unavailable with Retry-After', async () => {
    const { t, dbPath, userId } = await setUp(400);
    const holder = await holdWriteLock(dbPath);
    cleanup.push(() => release(holder));

    const order: string[] = [];
    const write = ingest(t, userId).then((res) => {
      order.push('write');
      return res;
    });
    // The event loop is free while the write retries: pings are answered before it gives up.
    for (let i = 0; i < 3; i += 1) {
      const ping = await t.app.inject({ method: 'GET', url: '/v1/ping' });
      expect(ping.statusCode).toBe(200);
      order.push('ping');
    }
    const res = await write;
    expect(order).toEqual(['ping', 'ping', 'ping', 'write']);
    expect(res.statusCode).toBe(503);
    expect(res.headers['retry-after']).toBe('1');
    expect(res.json()).toMatchObject({ error: { code: 'service_unavailable' } });
    // Reads are not blocked by a writer in WAL mode.
    const page = await t.app.inject({
      method: 'GET',
      url: `/v1/users/${userId}/events`,
      headers: { 'x-partner-api-key': ACME },
    });
    expect(page.statusCode).toBe(200);
  });

  it('succeeds once the lock is released within the retry budget', async () => {
    const { t, dbPath, userId } = await setUp(30_000);
    const holder = await holdWriteLock(dbPath);
    const write = ingest(t, userId);
    // Let the write meet the lock at least once, then release it.
    const ping = await t.app.inject({ method: 'GET', url: '/v1/ping' });
    expect(ping.statusCode).toBe(200);
    await release(holder);
    const res = await write;
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ accepted: 1, matched: 1 });
  });
});
