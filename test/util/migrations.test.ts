import { mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openUserDirectory } from '../../src/config/index.js';
import { openScanCache, type CacheKey, type CachedResult } from '../../src/scan/cache.js';
import { openStore } from '../../src/service/store/store.js';
import { findJournal, openJournalReader } from '../../src/sync/journal-reader.js';
import { fingerprintMedia, journalFileName, openJournal, type JournalKey } from '../../src/sync/journal.js';
import { LocalStateError } from '../../src/errors.js';
import { schemaTooNew } from '../../src/util/migrations.js';

/**
 * Files written by the build before numbered migrations: each made here with that build's
 * DDL text and `user_version`, then opened by this camroll. Each must open as it is (no
 * step run, nothing lost), or, for the scan cache's first layout, be rebuilt.
 */

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'camroll-previous-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** A file made with `ddl` at `version`, then `fill` run on it. */
function previousFile(
  path: string,
  ddl: string,
  version: number,
  fill: (db: Database.Database) => void = () => undefined,
): void {
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  db.exec(ddl);
  fill(db);
  db.pragma(`user_version = ${version}`);
  db.close();
}

/** The journal mode a file is in at rest. */
function journalModeOf(path: string): string {
  const db = new Database(path, { readonly: true });
  try {
    return db.pragma('journal_mode', { simple: true }) as string;
  } finally {
    db.close();
  }
}

/** user_version and the schema text of every table and index, to tell "untouched" from "migrated". */
function shape(path: string): { version: number; schema: string[] } {
  const db = new Database(path, { readonly: true });
  try {
    const schema = db
      .prepare<[], string>('SELECT sql FROM sqlite_master WHERE sql IS NOT NULL ORDER BY name')
      .pluck()
      .all();
    return { version: db.pragma('user_version', { simple: true }) as number, schema };
  } finally {
    db.close();
  }
}

// The service database, version 1, as the previous build's MIGRATIONS[0] made it.
const SERVICE_V1 = `
  CREATE TABLE meta (
    key   TEXT PRIMARY KEY,
    value BLOB NOT NULL
  ) WITHOUT ROWID;

  CREATE TABLE users (
    id              TEXT PRIMARY KEY,
    partner_id      TEXT NOT NULL,
    environment     TEXT NOT NULL,
    email           TEXT NOT NULL,
    partner_user_id TEXT,
    first_name      TEXT,
    last_name       TEXT,
    phone_number    TEXT,
    address_json    TEXT,
    created_at      TEXT NOT NULL,
    has_synced      INTEGER NOT NULL DEFAULT 0,
    last_sync_at_ms INTEGER
  ) WITHOUT ROWID;
  CREATE UNIQUE INDEX users_by_email ON users (partner_id, environment, email);
  CREATE UNIQUE INDEX users_by_phone ON users (partner_id, environment, phone_number)
    WHERE phone_number IS NOT NULL;

  CREATE TABLE matches (
    user_id       TEXT NOT NULL,
    media_id      TEXT NOT NULL,
    event_id      INTEGER NOT NULL,
    taken_at      TEXT NOT NULL,
    taken_at_ms   INTEGER NOT NULL,
    media_type    TEXT NOT NULL,
    thumbnail_url TEXT,
    PRIMARY KEY (user_id, media_id)
  ) WITHOUT ROWID;
  CREATE INDEX matches_by_event ON matches (user_id, event_id, taken_at_ms, media_id, taken_at, media_type, thumbnail_url);

  CREATE TABLE user_events (
    user_id      TEXT NOT NULL,
    event_id     INTEGER NOT NULL,
    starts_at_ms INTEGER NOT NULL,
    media_count  INTEGER NOT NULL,
    PRIMARY KEY (user_id, event_id)
  ) WITHOUT ROWID;
  CREATE INDEX user_events_newest ON user_events (user_id, starts_at_ms DESC, event_id DESC);
`;

// The sync journal, version 1 (the previous build's createSchema).
const JOURNAL_V1 = `
  CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
  CREATE TABLE IF NOT EXISTS outcomes (
    id TEXT PRIMARY KEY,
    fingerprint BLOB NOT NULL,
    outcome INTEGER NOT NULL,
    batch_id INTEGER NOT NULL
  ) WITHOUT ROWID;
  CREATE TABLE IF NOT EXISTS passes (
    id INTEGER PRIMARY KEY,
    kind TEXT NOT NULL,
    status TEXT NOT NULL,
    started_at TEXT NOT NULL,
    finished_at TEXT
  );
  CREATE TABLE IF NOT EXISTS batches (
    id INTEGER PRIMARY KEY,
    pass_id INTEGER NOT NULL,
    status TEXT NOT NULL,
    items INTEGER NOT NULL,
    error TEXT
  );
  CREATE TABLE IF NOT EXISTS pending (id TEXT PRIMARY KEY, batch_id INTEGER NOT NULL) WITHOUT ROWID;
`;

// The user directory, version 1.
const DIRECTORY_V1 = `
  CREATE TABLE IF NOT EXISTS users (
    target TEXT NOT NULL,
    email TEXT NOT NULL,
    user_id TEXT NOT NULL,
    first_seen TEXT NOT NULL,
    last_seen TEXT NOT NULL,
    source TEXT NOT NULL,
    PRIMARY KEY (target, email)
  ) WITHOUT ROWID;
  CREATE INDEX IF NOT EXISTS users_by_email ON users (email);
`;

// The scan cache: version 1 (one row per path) and version 2 (by folder and name).
const CACHE_V1 = `CREATE TABLE files (
  path TEXT PRIMARY KEY,
  size INTEGER NOT NULL,
  mtime_ms REAL NOT NULL,
  ino INTEGER NOT NULL,
  sidecars TEXT NOT NULL,
  extractor INTEGER NOT NULL,
  media TEXT,
  source TEXT,
  error TEXT
) WITHOUT ROWID`;
const CACHE_V2 = `CREATE TABLE IF NOT EXISTS files (
  dir TEXT NOT NULL,
  name TEXT NOT NULL,
  size INTEGER NOT NULL,
  mtime_ms REAL NOT NULL,
  ino INTEGER NOT NULL,
  sidecars TEXT NOT NULL,
  extractor INTEGER NOT NULL,
  data TEXT NOT NULL,
  PRIMARY KEY (dir, name)
) WITHOUT ROWID`;

describe('files of the previous build open unchanged', () => {
  it('the service database (version 1): its users and matches are read, no step runs again', async () => {
    const path = join(dir, 'service.db');
    previousFile(path, SERVICE_V1, 1, (db) => {
      db.prepare(
        `INSERT INTO users (id, partner_id, environment, email, created_at, has_synced, last_sync_at_ms)
         VALUES ('u-1', 'acme', 'sandbox', 'old@example.com', '2025-01-01T00:00:00.000Z', 1, 1735689600000)`,
      ).run();
      db.prepare(
        "INSERT INTO matches VALUES ('u-1', 'sha256:aa', 3, '2024-03-30T19:30:00Z', 1711827000000, 'photo', NULL)",
      ).run();
      db.prepare('INSERT INTO user_events VALUES (?, ?, ?, ?)').run('u-1', 3, 1711825200000, 1);
    });
    const before = shape(path);
    const store = openStore({ path });
    try {
      const scope = { partnerId: 'acme', environment: 'sandbox' } as const;
      expect(await store.findUser('u-1', scope)).toMatchObject({ email: 'old@example.com', has_synced: 1 });
      expect(await store.history('u-1')).toEqual({ eventIds: [3], hasSynced: true, lastSyncAtMs: 1735689600000 });
    } finally {
      await store.close();
    }
    expect(shape(path)).toEqual(before);
  });

  it('a sync journal (version 1): its answers still skip items, for a sync and for a dry run', () => {
    const key: JournalKey = { baseUrl: 'http://127.0.0.1:1/v1', partnerId: 'local', userId: 'u1' };
    const journals = join(dir, 'journals');
    const path = join(journals, journalFileName(key));
    const item = { id: 'sha256:bb', fingerprint: fingerprintMedia({ id: 'sha256:bb', latitude: 1 }) };
    mkdirSync(journals);
    previousFile(path, JOURNAL_V1, 1, (db) => {
      const meta = db.prepare('INSERT INTO meta (key, value) VALUES (?, ?)');
      meta.run('base_url', key.baseUrl);
      meta.run('partner_id', key.partnerId);
      meta.run('user_id', key.userId);
      db.prepare('INSERT INTO outcomes VALUES (?, ?, 0, 1)').run(item.id, item.fingerprint);
    });
    const before = shape(path);
    const journal = openJournal({ dir: journals, key });
    try {
      expect(journal.answerFor(item)).toBe('same');
      expect(journal.counts()).toEqual({ accepted: 1, rejected: 0, pending: 0 });
    } finally {
      journal.close();
    }
    expect(findJournal(journals, { ...key, partnerId: null })).toBe(path);
    const reader = openJournalReader(path);
    try {
      expect(reader.plan(item.id, item.fingerprint)).toBe('answered');
    } finally {
      reader.close();
    }
    expect(shape(path)).toEqual(before);
  });

  it('the user directory (version 1): its entries are found', () => {
    const path = join(dir, 'users.sqlite3');
    previousFile(path, DIRECTORY_V1, 1, (db) => {
      db.prepare('INSERT INTO users VALUES (?, ?, ?, ?, ?, ?)').run(
        'https://api.example.com/v1',
        'old@example.com',
        'u-1',
        '2025-01-01T00:00:00.000Z',
        '2025-01-01T00:00:00.000Z',
        'created',
      );
    });
    const before = shape(path);
    const directory = openUserDirectory({ path });
    try {
      expect(directory.find('old@example.com')).toEqual([
        expect.objectContaining({ target: 'https://api.example.com/v1', userId: 'u-1', source: 'created' }),
      ]);
    } finally {
      directory.close();
    }
    expect(shape(path)).toEqual(before);
    // The previous build left the file in WAL when another camroll had it open: now it keeps a rollback journal.
    expect(journalModeOf(path)).toBe('delete');
    expect(readdirSync(dir)).toEqual(['users.sqlite3']);
  });

  it('the user directory as the previous build left it closed (a rollback journal): opens and stays so', () => {
    const path = join(dir, 'users.sqlite3');
    previousFile(path, DIRECTORY_V1, 1, (db) => {
      db.prepare('INSERT INTO users VALUES (?, ?, ?, ?, ?, ?)').run(
        'https://api.example.com/v1',
        'old@example.com',
        'u-1',
        '2025-01-01T00:00:00.000Z',
        '2025-01-01T00:00:00.000Z',
        'created',
      );
    });
    const closed = new Database(path);
    closed.pragma('journal_mode = DELETE');
    closed.close();
    const directory = openUserDirectory({ path });
    try {
      expect(directory.lookup('https://api.example.com/v1', 'old@example.com')?.userId).toBe('u-1');
    } finally {
      directory.close();
    }
    expect(journalModeOf(path)).toBe('delete');
    expect(readdirSync(dir)).toEqual(['users.sqlite3']);
  });

  const cacheKey: CacheKey = {
    absPath: '/photos/a.jpg',
    size: 10,
    mtimeMs: 1700000000000.5,
    ino: 7,
    sidecarFingerprint: '',
  };
  const cached: CachedResult = { media: null, source: null, error: { code: 'corrupt_file', message: 'bad IFD' } };

  it('the scan cache (version 2): its rows are hits', () => {
    const file = join(dir, 'scan-cache.sqlite3');
    previousFile(file, CACHE_V2, 2, (db) => {
      db.prepare('INSERT INTO files VALUES (?, ?, ?, ?, ?, ?, ?, ?)').run(
        '/photos',
        'a.jpg',
        cacheKey.size,
        cacheKey.mtimeMs,
        cacheKey.ino,
        '',
        1,
        JSON.stringify(cached),
      );
    });
    const before = shape(file);
    const cache = openScanCache({ dir, extractorVersion: 1 });
    try {
      expect(cache.get(cacheKey)).toEqual(cached);
    } finally {
      cache.close();
    }
    expect(shape(file)).toEqual(before);
  });

  it('the scan cache (version 1, one row per path): rebuilt in the current layout', () => {
    const file = join(dir, 'scan-cache.sqlite3');
    previousFile(file, CACHE_V1, 1, (db) => {
      db.prepare('INSERT INTO files VALUES (?, ?, ?, ?, ?, ?, NULL, NULL, ?)').run(
        cacheKey.absPath,
        cacheKey.size,
        cacheKey.mtimeMs,
        cacheKey.ino,
        '',
        1,
        JSON.stringify(cached.error),
      );
    });
    const cache = openScanCache({ dir, extractorVersion: 1 });
    try {
      expect(cache.get(cacheKey)).toBeNull();
      cache.put(cacheKey, cached);
    } finally {
      cache.close();
    }
    const fresh = join(dir, 'fresh');
    openScanCache({ dir: fresh, extractorVersion: 1 }).close();
    expect(shape(file)).toEqual(shape(join(fresh, 'scan-cache.sqlite3')));
    const again = openScanCache({ dir, extractorVersion: 1 });
    expect(again.get(cacheKey)).toEqual(cached);
    again.close();
  });
});

describe('schemaTooNew', () => {
  it('names the subject when given one, and says which schema and what to do', () => {
    const named = schemaTooNew('database_too_new', 99, 3, 'service database /x/camroll.db');
    expect(named).toBeInstanceOf(LocalStateError);
    expect(named.code).toBe('database_too_new');
    expect(named.message).toBe(
      "service database /x/camroll.db was written by a newer camroll (schema 99 is newer than this camroll's 3); " +
        'upgrade camroll',
    );
    expect(schemaTooNew('database_too_new', 4, 3).message).toBe(
      "was written by a newer camroll (schema 4 is newer than this camroll's 3); upgrade camroll",
    );
  });
});
