import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { LocalStateError, type LocalStateErrorCode } from '../errors.js';
import { latestVersion, migrationsAfter, schemaTooNew, type Migration } from './migrations.js';
import { restrictToOwner } from './private-file.js';

export type { Migration } from './migrations.js';

/** How long a statement waits for another process's write lock before SQLITE_BUSY. */
const DEFAULT_BUSY_TIMEOUT_MS = 5 * 1000; // 5 s: another camroll may be writing

export interface VersionedDatabaseOptions {
  path: string;
  /** What the file is, for messages: `the scan cache`. */
  what: string;
  /**
   * The schema's steps, numbered 1, 2, 3, … (append only); the last one's number is the version
   * this camroll writes (`PRAGMA user_version`). The steps a file lacks run in one write
   * transaction with the version check, so two processes opening the same new file at once
   * create it once; a failure leaves the file as it was.
   */
  migrations: readonly Migration[];
  /** What a new file holds besides its schema: run after the steps, in their transaction, on a file at version 0. */
  seed?: (db: Database.Database) => void;
  /** The codes of the two ways opening fails. */
  codes: { unreadable: LocalStateErrorCode; tooNew: LocalStateErrorCode };
  /**
   * The journal the file keeps, set here once per open and never switched back: `wal` (the
   * default) lets readers read while one process writes; `delete` (a rollback journal) suits a
   * small file that other processes open read only, as nothing is left beside it at rest.
   */
  journalMode?: 'wal' | 'delete';
  /** Read only: no schema change, no journal switch, the file must exist. */
  readonly?: boolean;
  /**
   * With `readonly`: a file written by a newer camroll is opened as it is, not refused, for a
   * read of what every version keeps alike (a journal's `meta`, to tell whose it is).
   */
  acceptNewer?: boolean;
  busyTimeoutMs?: number;
  /** A read that surfaces a damaged file at open rather than mid-run (e.g. `SELECT 1 FROM t LIMIT 1`). */
  probe?: string;
}

/**
 * Opens a SQLite file camroll keeps user data in: the folder made if needed, mode 0600 (WAL and
 * shared memory included), WAL with synchronous NORMAL (a crash may lose the last commit, never
 * corrupt the file) or the rollback journal `journalMode` asks for, a busy timeout, and the
 * migrations it lacks applied in one transaction. A
 * file written by a newer camroll is refused. Every failure is a LocalStateError naming the file;
 * the SQLite error is its `cause` (see `isCorruption`).
 */
export function openVersionedDatabase(options: VersionedDatabaseOptions): Database.Database {
  const { path, what, codes } = options;
  const version = latestVersion(options.migrations);
  const readonly = options.readonly === true;
  const fail = (error: unknown): LocalStateError =>
    error instanceof LocalStateError
      ? error
      : new LocalStateError(codes.unreadable, `cannot open ${what} ${path}: ${(error as Error).message}`, {
          cause: error,
        });
  let db: Database.Database;
  try {
    if (!readonly && path !== ':memory:') mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    db = new Database(path, {
      readonly,
      fileMustExist: readonly,
      timeout: options.busyTimeoutMs ?? DEFAULT_BUSY_TIMEOUT_MS,
    });
  } catch (error) {
    throw fail(error);
  }
  try {
    if (!readonly && options.journalMode === 'delete') {
      keepRollbackJournal(db);
      if (path !== ':memory:') restrictToOwner(path, `${path}-wal`, `${path}-shm`);
    } else if (!readonly) {
      switchToWal(db, options.busyTimeoutMs ?? DEFAULT_BUSY_TIMEOUT_MS);
      // `:memory:` names no file: one of that name in the working folder is not ours to chmod.
      if (path !== ':memory:') restrictToOwner(path, `${path}-wal`, `${path}-shm`);
      db.pragma('synchronous = NORMAL');
    }
    const tooNew = (found: number): LocalStateError => schemaTooNew(codes.tooNew, found, version, `${what} ${path}`);
    const current = (): number => db.pragma('user_version', { simple: true }) as number;
    const found = current();
    if (found > version && !(readonly && options.acceptNewer === true)) throw tooNew(found);
    if (found < version && !readonly) {
      // IMMEDIATE: the write lock is taken before the version is read again, so a second
      // process that got here too waits, then finds the schema made.
      db.transaction(() => {
        const now = current();
        if (now > version) throw tooNew(now);
        if (now === version) return;
        for (const step of migrationsAfter(options.migrations, now)) db.exec(step.up);
        if (now === 0) options.seed?.(db);
        db.pragma(`user_version = ${version}`);
      }).immediate();
    }
    if (options.probe !== undefined) db.prepare(options.probe).get();
    return db;
  } catch (error) {
    db.close();
    throw fail(error);
  }
}

/**
 * Puts a file in rollback-journal mode, a no-op for one already in it. A file another process
 * holds open in WAL (an older camroll switched it) cannot leave WAL now, and SQLite says so at
 * once (SQLITE_BUSY, no wait): it is used in WAL this time and switched at a later open.
 * Synchronous stays FULL, which a rollback journal needs to survive a power cut.
 */
function keepRollbackJournal(db: Database.Database): void {
  try {
    db.pragma('journal_mode = DELETE');
  } catch (error) {
    if ((error as { code?: unknown }).code !== 'SQLITE_BUSY') throw error;
  }
}

/** How long to pause between two tries at the switch to WAL. */
const WAL_RETRY_PAUSE_MS = 10;

/**
 * Puts a file in WAL mode. The switch takes an exclusive lock, and when two processes open a
 * new file at the same moment SQLite answers one of them SQLITE_BUSY at once, without its busy
 * handler (it would deadlock otherwise): that one tries again, up to the busy timeout.
 */
function switchToWal(db: Database.Database, busyTimeoutMs: number): void {
  const deadline = Date.now() + busyTimeoutMs;
  for (;;) {
    try {
      db.pragma('journal_mode = WAL');
      return;
    } catch (error) {
      if (!isBusy(error) || Date.now() >= deadline) throw error;
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, WAL_RETRY_PAUSE_MS);
    }
  }
}

function isBusy(error: unknown): boolean {
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' && code.startsWith('SQLITE_BUSY');
}

/** SQLite result codes that mean the file itself is damaged or is not a database. */
const CORRUPTION_CODES = new Set(['SQLITE_CORRUPT', 'SQLITE_NOTADB']);

/**
 * Whether an error (or its cause) says the database file is damaged or not a database, as
 * opposed to busy, locked or unreadable: only then may a cache be thrown away and rebuilt.
 */
export function isCorruption(error: unknown): boolean {
  for (let at: unknown = error, depth = 0; at !== null && at !== undefined && depth < 5; depth += 1) {
    const code = (at as { code?: unknown }).code;
    if (typeof code === 'string' && (CORRUPTION_CODES.has(code) || code.startsWith('SQLITE_CORRUPT_'))) return true;
    at = (at as { cause?: unknown }).cause;
  }
  return false;
}
