import { existsSync } from 'node:fs';
import type Database from 'better-sqlite3';
import { LocalStateError } from '../errors.js';
import { openVersionedDatabase, type Migration, type VersionedDatabaseOptions } from '../util/sqlite.js';
import { normalizeEmail } from './schema.js';

/** How an entry came to be known. */
export type EntrySource = 'created' | 'found' | 'import';

/** One user known on this machine: an e-mail's user id at one target. */
export interface DirectoryEntry {
  /** `target.identity` of a connection: a base URL, or `embedded:<database file>`. */
  target: string;
  /** Normalized (trimmed, lower case), as the service identifies users. */
  email: string;
  userId: string;
  /** When this machine first and last learnt or used this entry (ISO 8601, UTC). */
  firstSeen: string;
  lastSeen: string;
  source: EntrySource;
}

export interface RememberInput {
  target: string;
  email: string;
  userId: string;
  source: EntrySource;
}

/**
 * What the reading commands (`--email` lookups, `users list`, `users show`) may do with the
 * directory: read it. Nothing here writes, and a directory that does not exist yet reads as
 * empty without being created.
 */
export interface UserDirectoryReader {
  readonly path: string;
  /** The entry of an e-mail at a target, or null. Changes nothing (not even last seen). */
  get(target: string, email: string): DirectoryEntry | null;
  /** Every entry of an e-mail, at any target, most recently seen first. */
  find(email: string): DirectoryEntry[];
  /** The e-mails known at a target, in order; streamed (for near-miss suggestions). */
  emailsAt(target: string): IterableIterator<string>;
  /** Every entry, by target then e-mail; streamed, never one big array. */
  list(): IterableIterator<DirectoryEntry>;
  close(): void;
}

/**
 * The users known on this machine, per (target, e-mail): filled by `users create`,
 * `sync --email` and `users import`, read by `--email` lookups that never create anything.
 */
export interface UserDirectory extends UserDirectoryReader {
  /** Adds or refreshes an entry (a changed id replaces the old one); returns it. */
  remember(input: RememberInput): DirectoryEntry;
  /** The entry of an e-mail at a target, or null; marks it seen (a sync that uses it). */
  lookup(target: string, email: string): DirectoryEntry | null;
  /**
   * Adds many entries (an import), committed every IMPORT_CHUNK_ROWS, so another camroll's
   * lookup never waits for more than one chunk; returns how many were new or changed. An import
   * cut short keeps the chunks it committed (running it again adds the rest).
   */
  rememberAll(entries: Iterable<RememberInput>): { added: number; updated: number; unchanged: number };
  /** Removes an e-mail at one target (or at every target); returns how many entries went. */
  forget(email: string, target?: string): number;
}

export interface OpenUserDirectoryOptions {
  path: string;
  now?: () => Date;
  /** Entries an older camroll kept in config.json (target -> e-mail -> id), taken over once. */
  legacy?: () => Record<string, Record<string, string>>;
  /** Called after the legacy entries were taken over, so they can be dropped from their old place. */
  legacyTaken?: () => void;
  /** How long a statement waits for another camroll's write lock before it is said as `locked`. */
  busyTimeoutMs?: number;
}

/** The directory's schema steps (append only). */
const DIRECTORY_MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    up: `CREATE TABLE IF NOT EXISTS users (
        target TEXT NOT NULL,
        email TEXT NOT NULL,
        user_id TEXT NOT NULL,
        first_seen TEXT NOT NULL,
        last_seen TEXT NOT NULL,
        source TEXT NOT NULL,
        PRIMARY KEY (target, email)
      ) WITHOUT ROWID;
      CREATE INDEX IF NOT EXISTS users_by_email ON users (email)`,
  },
];

interface Row {
  target: string;
  email: string;
  user_id: string;
  first_seen: string;
  last_seen: string;
  source: EntrySource;
}

const toEntry = (row: Row): DirectoryEntry => ({
  target: row.target,
  email: row.email,
  userId: row.user_id,
  firstSeen: row.first_seen,
  lastSeen: row.last_seen,
  source: row.source,
});

const WHAT = 'the user directory';

/**
 * Rows an import commits at a time. In the directory's rollback journal a reader waits while
 * a writer commits (or spills its cache, which the writer does not do): one transaction for a
 * whole import of a million rows kept every `--email` lookup out past its busy timeout.
 */
export const IMPORT_CHUNK_ROWS = 10_000;
const CODES = { unreadable: 'directory_unreadable', tooNew: 'directory_too_new' } as const;

/** Whether an error (or its cause) is SQLite's "database is locked": another process holds the write lock. */
function isBusy(error: unknown): boolean {
  for (let e = error; e !== null && e !== undefined; e = (e as { cause?: unknown }).cause) {
    if ((e as { code?: unknown }).code === 'SQLITE_BUSY') return true;
  }
  return false;
}

/**
 * What a failed open or statement is said as: a directory another camroll kept locked past the
 * busy timeout is busy, not damaged or unreadable, and a later try works (`locked`, as a
 * journal a sync holds). Other errors are left as they are.
 */
function busyAsLocked(path: string, error: unknown): unknown {
  if (!isBusy(error)) return error;
  return new LocalStateError('locked', `another camroll is writing ${WHAT} (${path}); try again`, {
    cause: error,
    details: { path },
  });
}

/** Runs an open or a statement, a busy directory said as such. */
function whileNotBusy<T>(path: string, run: () => T): T {
  try {
    return run();
  } catch (error) {
    throw busyAsLocked(path, error);
  }
}

/** Opens the directory's file, a busy one said as such. */
function openDirectoryFile(options: Omit<VersionedDatabaseOptions, 'what' | 'migrations' | 'codes'>) {
  return whileNotBusy(options.path, () =>
    openVersionedDatabase({ ...options, what: WHAT, migrations: DIRECTORY_MIGRATIONS, codes: CODES }),
  );
}

/** Streams a query's rows, as whileNotBusy (the rows are read as they are asked for). */
function* rowsWhileNotBusy<T>(path: string, rows: IterableIterator<T>): Generator<T> {
  try {
    yield* rows;
  } catch (error) {
    throw busyAsLocked(path, error);
  }
}

/** The read statements, shared by the reader and the full directory. */
function readerOf(db: Database.Database, path: string): UserDirectoryReader {
  const select = db.prepare<[string, string], Row>('SELECT * FROM users WHERE target = ? AND email = ?');
  const byEmail = db.prepare<[string], Row>('SELECT * FROM users WHERE email = ? ORDER BY last_seen DESC, target');
  const atTarget = db.prepare<[string], { email: string }>('SELECT email FROM users WHERE target = ? ORDER BY email');
  const all = db.prepare<[], Row>('SELECT * FROM users ORDER BY target, email');
  return {
    path,
    get: (target, email) =>
      whileNotBusy(path, () => {
        const row = select.get(target, normalizeEmail(email));
        return row === undefined ? null : toEntry(row);
      }),
    find: (email) => whileNotBusy(path, () => byEmail.all(normalizeEmail(email)).map(toEntry)),
    *emailsAt(target) {
      for (const row of rowsWhileNotBusy(path, atTarget.iterate(target))) yield row.email;
    },
    *list() {
      for (const row of rowsWhileNotBusy(path, all.iterate())) yield toEntry(row);
    },
    close: () => db.close(),
  };
}

/** A directory with nothing in it, for a machine where none was ever written. */
function emptyReader(path: string): UserDirectoryReader {
  return {
    path,
    get: () => null,
    find: () => [],
    *emailsAt() {},
    *list() {},
    close: () => undefined,
  };
}

/**
 * Opens the user directory to read only: no file, folder, WAL switch or schema is created, and
 * a directory that does not exist (or was never given a schema) reads as empty.
 */
export function readUserDirectory(options: { path: string; busyTimeoutMs?: number }): UserDirectoryReader {
  if (!existsSync(options.path)) return emptyReader(options.path);
  const db = openDirectoryFile({
    path: options.path,
    readonly: true,
    ...(options.busyTimeoutMs === undefined ? {} : { busyTimeoutMs: options.busyTimeoutMs }),
  });
  let version: number;
  try {
    version = whileNotBusy(options.path, () => db.pragma('user_version', { simple: true }) as number);
  } catch (error) {
    db.close();
    throw error;
  }
  if (version === 0) {
    db.close();
    return emptyReader(options.path);
  }
  return readerOf(db, options.path);
}

/** Opens (creating when needed) the user directory, a SQLite file of mode 0600. */
export function openUserDirectory(options: OpenUserDirectoryOptions): UserDirectory {
  const now = (): string => (options.now ?? (() => new Date()))().toISOString();
  const db = openDirectoryFile({
    path: options.path,
    // A rollback journal: a reader (an `--email` lookup) opens the file read-only and leaves no
    // -wal and -shm files beside it, and the file is never switched between modes.
    journalMode: 'delete',
    ...(options.busyTimeoutMs === undefined ? {} : { busyTimeoutMs: options.busyTimeoutMs }),
  });
  // A writer that spills its page cache takes the exclusive lock before it commits, and readers
  // wait until it does: an import's chunk is small enough to stay in memory instead.
  db.pragma('cache_spill = false');

  const select = db.prepare<[string, string], Row>('SELECT * FROM users WHERE target = ? AND email = ?');
  const insert = db.prepare<[string, string, string, string, string, string]>(
    'INSERT INTO users (target, email, user_id, first_seen, last_seen, source) VALUES (?, ?, ?, ?, ?, ?)',
  );
  const refresh = db.prepare<[string, string, string, string, string]>(
    'UPDATE users SET user_id = ?, last_seen = ?, source = ? WHERE target = ? AND email = ?',
  );
  const touch = db.prepare<[string, string, string]>('UPDATE users SET last_seen = ? WHERE target = ? AND email = ?');
  const removeOne = db.prepare<[string, string]>('DELETE FROM users WHERE email = ? AND target = ?');
  const removeAll = db.prepare<[string]>('DELETE FROM users WHERE email = ?');

  /** 'added' | 'updated' | 'unchanged', and the entry as stored. */
  const upsert = (input: RememberInput, at: string): ['added' | 'updated' | 'unchanged', DirectoryEntry] => {
    const email = normalizeEmail(input.email);
    const existing = select.get(input.target, email);
    if (existing === undefined) {
      insert.run(input.target, email, input.userId, at, at, input.source);
      return [
        'added',
        { target: input.target, email, userId: input.userId, firstSeen: at, lastSeen: at, source: input.source },
      ];
    }
    const changed = existing.user_id !== input.userId;
    // An import of what is already known only refreshes the date; a new id is a new fact.
    const source = changed || input.source !== 'import' ? input.source : existing.source;
    refresh.run(input.userId, at, source, input.target, email);
    return [changed ? 'updated' : 'unchanged', { ...toEntry(existing), userId: input.userId, lastSeen: at, source }];
  };

  type Counts = { added: number; updated: number; unchanged: number };
  /** Up to IMPORT_CHUNK_ROWS entries in one transaction; false once the entries are used up. */
  const rememberChunk = db.transaction((entries: Iterator<RememberInput>, at: string, counts: Counts): boolean => {
    for (let n = 0; n < IMPORT_CHUNK_ROWS; n += 1) {
      const next = entries.next();
      if (next.done === true) return false;
      counts[upsert(next.value, at)[0]] += 1;
    }
    return true;
  });
  const rememberAll = (entries: Iterable<RememberInput>): Counts => {
    const counts = { added: 0, updated: 0, unchanged: 0 };
    const at = now();
    const iterator = entries[Symbol.iterator]();
    while (rememberChunk(iterator, at, counts));
    return counts;
  };

  const legacy = options.legacy?.() ?? {};
  const legacyEntries = Object.entries(legacy).flatMap(([target, emails]) =>
    Object.entries(emails).map(([email, userId]) => ({ target, email, userId, source: 'found' as const })),
  );
  // The writes wait for another camroll's lock as the reads do, and one held past the busy
  // timeout is said as `locked` (try again), not as an internal error.
  const path = options.path;
  if (legacyEntries.length > 0) {
    try {
      whileNotBusy(path, () => rememberAll(legacyEntries));
    } catch (error) {
      db.close();
      throw error;
    }
    options.legacyTaken?.();
  }

  return {
    ...readerOf(db, path),
    remember: (input) => whileNotBusy(path, () => upsert(input, now())[1]),
    lookup: (target, email) =>
      whileNotBusy(path, () => {
        const row = select.get(target, normalizeEmail(email));
        if (row === undefined) return null;
        const at = now();
        touch.run(at, row.target, row.email);
        return { ...toEntry(row), lastSeen: at };
      }),
    rememberAll: (entries) => whileNotBusy(path, () => rememberAll(entries)),
    forget: (email, target) =>
      whileNotBusy(path, () =>
        target === undefined
          ? removeAll.run(normalizeEmail(email)).changes
          : removeOne.run(normalizeEmail(email), target).changes,
      ),
  };
}
