import { existsSync } from 'node:fs';
import type Database from 'better-sqlite3';
import { openVersionedDatabase, type Migration } from '../util/sqlite.js';
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
  /** Adds many entries in one transaction (an import); returns how many were new or changed. */
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
const CODES = { unreadable: 'directory_unreadable', tooNew: 'directory_too_new' } as const;

/** The read statements, shared by the reader and the full directory. */
function readerOf(db: Database.Database, path: string): UserDirectoryReader {
  const select = db.prepare<[string, string], Row>('SELECT * FROM users WHERE target = ? AND email = ?');
  const byEmail = db.prepare<[string], Row>('SELECT * FROM users WHERE email = ? ORDER BY last_seen DESC, target');
  const atTarget = db.prepare<[string], { email: string }>('SELECT email FROM users WHERE target = ? ORDER BY email');
  const all = db.prepare<[], Row>('SELECT * FROM users ORDER BY target, email');
  return {
    path,
    get: (target, email) => {
      const row = select.get(target, normalizeEmail(email));
      return row === undefined ? null : toEntry(row);
    },
    find: (email) => byEmail.all(normalizeEmail(email)).map(toEntry),
    *emailsAt(target) {
      for (const row of atTarget.iterate(target)) yield row.email;
    },
    *list() {
      for (const row of all.iterate()) yield toEntry(row);
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
export function readUserDirectory(options: { path: string }): UserDirectoryReader {
  if (!existsSync(options.path)) return emptyReader(options.path);
  const db = openVersionedDatabase({
    path: options.path,
    what: WHAT,
    migrations: DIRECTORY_MIGRATIONS,
    codes: CODES,
    readonly: true,
  });
  if ((db.pragma('user_version', { simple: true }) as number) === 0) {
    db.close();
    return emptyReader(options.path);
  }
  return readerOf(db, options.path);
}

/** Opens (creating when needed) the user directory, a SQLite file of mode 0600. */
export function openUserDirectory(options: OpenUserDirectoryOptions): UserDirectory {
  const now = (): string => (options.now ?? (() => new Date()))().toISOString();
  const db = openVersionedDatabase({
    path: options.path,
    what: WHAT,
    migrations: DIRECTORY_MIGRATIONS,
    codes: CODES,
    // A rollback journal: a reader (an `--email` lookup) opens the file read-only and leaves no
    // -wal and -shm files beside it, and the file is never switched between modes.
    journalMode: 'delete',
  });

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

  const rememberAll = db.transaction((entries: Iterable<RememberInput>) => {
    const counts = { added: 0, updated: 0, unchanged: 0 };
    const at = now();
    for (const entry of entries) counts[upsert(entry, at)[0]] += 1;
    return counts;
  });

  const legacy = options.legacy?.() ?? {};
  const legacyEntries = Object.entries(legacy).flatMap(([target, emails]) =>
    Object.entries(emails).map(([email, userId]) => ({ target, email, userId, source: 'found' as const })),
  );
  if (legacyEntries.length > 0) {
    rememberAll(legacyEntries);
    options.legacyTaken?.();
  }

  return {
    ...readerOf(db, options.path),
    remember: (input) => upsert(input, now())[1],
    lookup: (target, email) => {
      const row = select.get(target, normalizeEmail(email));
      if (row === undefined) return null;
      const at = now();
      touch.run(at, row.target, row.email);
      return { ...toEntry(row), lastSeen: at };
    },
    rememberAll: (entries) => rememberAll(entries),
    forget: (email, target) =>
      target === undefined
        ? removeAll.run(normalizeEmail(email)).changes
        : removeOne.run(normalizeEmail(email), target).changes,
  };
}
