import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll } from 'vitest';
import { tempHome } from './camroll.js';
import { generateLibrary, type LibraryFacts, type LibraryOptions } from './library.js';
import { startServe, type ServeHandle } from './serve.js';

/** A key for tests only; every test checks it never shows up in output or files. */
export const TEST_KEY = 'sk_test_e2e_Zq8vX1pLk3';

export interface SyncEnv {
  dir: string;
  serve: ServeHandle;
  /** Environment for a client command pointed at `baseUrl` (the service or a proxy). */
  clientEnv(baseUrl: string): NodeJS.ProcessEnv;
  /** All events of a user with their media, straight from the service. */
  events(userId: string): Promise<unknown[]>;
  /** Ids the journals under this home hold as accepted, for the users `include` keeps (default all). */
  journalAccepted(include?: (userId: string) => boolean): Set<string>;
  close(): Promise<void>;
}

/** A temp home and a `camroll serve` on 127.0.0.1 with a fresh database and the test key. */
export async function createSyncEnv(): Promise<SyncEnv> {
  const home = tempHome();
  const serve = await startServe({ env: { ...home.env, CAMROLL_API_KEY: TEST_KEY }, db: join(home.dir, 'service.db') });
  const journals = join(home.env.XDG_DATA_HOME!, 'camroll', 'journals');
  return {
    dir: home.dir,
    serve,
    clientEnv: (baseUrl) => ({ ...home.env, CAMROLL_BASE_URL: baseUrl, CAMROLL_API_KEY: TEST_KEY }),
    events: async (userId) => {
      const out: unknown[] = [];
      let cursor: string | null = null;
      for (let page = 0; page < 100; page += 1) {
        const url = new URL(`${serve.baseUrl}/users/${userId}/events`);
        url.searchParams.set('limit', '100');
        if (cursor) url.searchParams.set('cursor', cursor);
        const res = await fetch(url, { headers: { 'X-PARTNER-API-KEY': TEST_KEY } });
        const body = (await res.json()) as { events: unknown[]; has_more: boolean; next_cursor: string | null };
        out.push(...body.events);
        if (!body.has_more) break;
        cursor = body.next_cursor;
      }
      return out;
    },
    journalAccepted: (include = () => true) => {
      const ids = new Set<string>();
      let files: string[] = [];
      try {
        files = readdirSync(journals).filter((f) => f.endsWith('.sqlite'));
      } catch {
        return ids;
      }
      for (const f of files) {
        const db = new Database(join(journals, f));
        const user = db.prepare("SELECT value FROM meta WHERE key = 'user_id'").pluck().get() as string;
        if (!include(user)) {
          db.close();
          continue;
        }
        for (const row of db.prepare('SELECT id FROM outcomes WHERE outcome = 0').pluck().all() as string[])
          ids.add(row);
        db.close();
      }
      return ids;
    },
    close: async () => {
      await serve.stop();
      rmSync(home.dir, { recursive: true, force: true });
    },
  };
}

/** What a suite syncing one generated library gets: its service, its library, what a sync must find. */
export interface SyncSuite {
  env: SyncEnv;
  lib: string;
  facts: LibraryFacts;
}

/**
 * Registers the suite's set-up and tear-down: a `camroll serve` of its own (createSyncEnv)
 * and a generated library in a temp folder, both removed after the suite. `ready` receives
 * them before the suite's own `beforeAll` hooks run.
 */
export function useSyncLibrary(library: Omit<LibraryOptions, 'dir'>, ready: (suite: SyncSuite) => void): void {
  let env: SyncEnv | undefined;
  let lib: string | undefined;
  beforeAll(async () => {
    env = await createSyncEnv();
    lib = mkdtempSync(join(tmpdir(), 'camroll-lib-'));
    ready({ env, lib, facts: generateLibrary({ dir: lib, ...library }) });
  });
  afterAll(async () => {
    await env?.close();
    if (lib) rmSync(lib, { recursive: true, force: true });
  });
}
