import { createHash, hash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { basename, join } from 'node:path';
import type Database from 'better-sqlite3';
import type { RejectionReason } from '../contract/index.js';
import { LocalStateError } from '../errors.js';
import { describeFsError } from '../util/fs-error.js';
import { acquireLock, type ProcessLock } from '../util/process-lock.js';
import { latestVersion } from '../util/migrations.js';
import { openVersionedDatabase, type Migration } from '../util/sqlite.js';
import type { JournalAnswer } from './dedupe.js';

/**
 * The sync journal: what one service (base URL + partner) already knows of one user's
 * library. SQLite in WAL mode, written once per batch response in a single transaction, so
 * a kill -9 at any instant leaves either the whole batch outcome or none of it.
 *
 * Rows are keyed by asset id and carry a fingerprint of the exact metadata sent: an id is
 * skipped on a later pass only when it was answered for identical metadata (a sidecar that
 * adds coordinates to the same bytes changes the fingerprint, so the item is re-sent).
 */
export const JOURNAL_MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    // Outcomes per id, passes, batches, pending ids, and the key the journal belongs to (meta).
    up: `
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
  `,
  },
];

/** The schema version this camroll writes and reads. */
export const JOURNAL_SCHEMA_VERSION = latestVersion(JOURNAL_MIGRATIONS);

/** What every open of a journal passes to the versioned open: its name in errors, its schema, its error codes. */
export const JOURNAL_DB = {
  what: 'the sync journal',
  migrations: JOURNAL_MIGRATIONS,
  codes: { unreadable: 'journal_error', tooNew: 'journal_error' },
} as const;

/** Outcome codes stored per id: 0 accepted, else the rejection reason. */
const OUTCOME_CODES: Record<'accepted' | RejectionReason, number> = {
  accepted: 0,
  missing_coordinates: 1,
  missing_taken_at: 2,
  invalid: 3,
};

/** `watch`: a batch of files changed after a pass (`sync --watch`), not a walk of the library. */
export type PassKind = 'full' | 'incremental' | 'watch';
export type PassStatus = 'running' | 'complete' | 'failed' | 'interrupted';

/** Identity of a journal: one per (base URL, partner, user). */
export interface JournalKey {
  baseUrl: string;
  partnerId: string;
  userId: string;
}

export interface JournalItem {
  id: string;
  fingerprint: Buffer;
}

export interface BatchOutcome {
  accepted: JournalItem[];
  rejected: Array<JournalItem & { reason: RejectionReason }>;
}

export interface JournalCounts {
  accepted: number;
  rejected: number;
  pending: number;
}

export interface PassRecord {
  id: number;
  kind: PassKind;
  status: PassStatus;
  startedAt: string;
  finishedAt: string | null;
}

/** What opening found left over from an earlier run that did not end cleanly. */
export interface Recovery {
  interruptedPasses: number;
  interruptedBatches: number;
  pendingItems: number;
}

export interface Journal {
  readonly path: string;
  readonly recovery: Recovery;
  /**
   * What the journal held for the item's id before the current pass began: an answer for
   * this exact metadata (`same`: answered, accepted or rejected), for other metadata (`other`:
   * changed, or another copy of the same bytes), or none. Ask once per id per pass: answers
   * written during the pass are not seen.
   */
  answerFor(item: JournalItem): JournalAnswer;
  /** Records a batch as sent (its ids pending) and returns its id. */
  beginBatch(passId: number, items: readonly JournalItem[]): number;
  /** Records a batch's response in one transaction. */
  completeBatch(batchId: number, outcome: BatchOutcome): void;
  /** Marks a batch failed after retries; its ids stay pending and are re-sent next pass. */
  failBatch(batchId: number, error: string): void;
  /** Marks a batch abandoned by an interruption; its ids stay pending. */
  abandonBatch(batchId: number): void;
  beginPass(kind: PassKind): number;
  /** Ends a pass; a complete library pass also clears what is still pending (files gone or changed). */
  finishPass(passId: number, status: Exclude<PassStatus, 'running'>): void;
  lastPass(): PassRecord | null;
  counts(): JournalCounts;
  /** Forgets every outcome (the service no longer knows the user's media). */
  clear(): void;
  close(): void;
}

/**
 * The journal file name for a key: a hash, so no URL or id leaks into a file name. The user id
 * is taken in lower case (a UUID in capitals is the same user), as everywhere a journal is keyed.
 */
export function journalFileName(key: JournalKey): string {
  const digest = createHash('sha256')
    .update(JSON.stringify([key.baseUrl.replace(/\/+$/, ''), key.partnerId, key.userId.toLowerCase()]))
    .digest('hex');
  return `${digest.slice(0, 32)}.sqlite`;
}

/**
 * A stable 8-byte fingerprint of the metadata object sent for an item: the first 8 bytes of
 * the SHA-256 of its members as sorted `[name, value]` pairs in JSON (undefined as null).
 * Journals store these bytes, so the definition never changes. (A member-by-member writer
 * of the same JSON was tried and measured ~30 % slower than one JSON.stringify.)
 */
export function fingerprintMedia(media: Record<string, unknown>): Buffer {
  const keys = Object.keys(media).sort();
  const canonical = JSON.stringify(keys.map((k) => [k, media[k] ?? null]));
  // One call per item of a library: the one-shot hash skips building a Hash object.
  return hash('sha256', canonical, 'buffer').subarray(0, 8);
}

export interface OpenJournalOptions {
  /** Folder holding journals (normally `ctx.paths.data/journals`). */
  dir: string;
  key: JournalKey;
  /** Clock seam for tests. */
  now?: () => Date;
  /** Test seam: runs right before a takeover renames the old file (a crash there must lose nothing). */
  beforeTakeoverRename?: () => void;
}

/**
 * Opens (creating if needed) the journal for a key and recovers from an unclean end. The user
 * id is used in lower case whatever the caller passes (remembered and service-issued ids come
 * as they are): so a journal is only ever taken over from capitals to lower case, never back.
 */
export function openJournal(options: OpenJournalOptions): Journal {
  const key: JournalKey = { ...options.key, userId: options.key.userId.toLowerCase() };
  const path = join(options.dir, journalFileName(key));
  try {
    mkdirSync(options.dir, { recursive: true, mode: 0o700 });
  } catch (error) {
    throw new LocalStateError(
      'journal_error',
      `cannot create the journal folder ${options.dir}: ${describeFsError(error as NodeJS.ErrnoException)}`,
      {
        cause: error,
      },
    );
  }
  const now = (): string => (options.now ?? (() => new Date()))().toISOString();
  // One sync per journal at a time: a second would mark the first one's pass interrupted.
  let lock = acquireLock(`${path}.lock`, JOURNAL_LOCK_WHAT);
  let at = path;
  let db: Database.Database;
  try {
    if (!existsSync(path)) {
      const kept = adoptOtherSpelling(options.dir, key, path, options.beforeTakeoverRename);
      if (kept !== null) {
        // Not taken over this time: this run works on the old file, holding both locks.
        at = kept.path;
        lock = bothLocks(kept.lock, lock);
      }
    }
    db = openVersionedDatabase({
      path: at,
      ...JOURNAL_DB,
      seed: (created) => writeKey(created, key),
    });
  } catch (error) {
    lock.release();
    throw error;
  }
  // Ids are random, so each batch dirties pages all over the outcome table: a checkpoint
  // (which syncs the file) every ~40 MiB of WAL rather than every ~4 MiB keeps a large first
  // sync from paying for it again and again.
  db.pragma('wal_autocheckpoint = 10000');
  return createJournal(db, at, now, lock);
}

/** Two held locks released as one, the first taken last. */
function bothLocks(inner: ProcessLock, outer: ProcessLock): ProcessLock {
  return {
    release: () => {
      try {
        inner.release();
      } finally {
        outer.release();
      }
    },
  };
}

const JOURNAL_LOCK_WHAT = "this user's sync journal for this target (another camroll sync)";

/** A journal's key as kept inside it; `partnerId` null matches any partner. */
export interface JournalMetaQuery {
  baseUrl: string;
  partnerId: string | null;
  userId: string;
}

/**
 * Finds a journal in `dir` by the key kept in its `meta`, the user id compared ignoring case (a
 * UUID in capitals is the same user: earlier releases kept it as typed). `skip` names a file
 * not to return. Files that are not journals are passed over. When several match (an earlier
 * release ran again after a takeover, or a backup was restored), the file a sync would open
 * wins (its name is its key's), then one keeping the id in lower case, then one in capitals:
 * never whichever name happens to sort first.
 */
export function findJournalByMeta(dir: string, query: JournalMetaQuery, skip?: string): string | null {
  let names: string[];
  try {
    names = readdirSync(dir).filter((name) => name.endsWith('.sqlite') && name !== skip);
  } catch {
    return null;
  }
  const baseUrl = query.baseUrl.replace(/\/+$/, '');
  const userId = query.userId.toLowerCase();
  let found: { path: string; rank: number } | null = null;
  for (const name of names) {
    let db: Database.Database;
    try {
      // A newer camroll's journal is still told by its meta: when it is this user's, opening
      // it for use refuses it by name (upgrade camroll) rather than passing it over.
      db = openVersionedDatabase({
        path: join(dir, name),
        ...JOURNAL_DB,
        readonly: true,
        acceptNewer: true,
      });
    } catch {
      continue; // Not a journal (damaged, or not a database): not the one.
    }
    try {
      const meta = new Map(
        db
          .prepare<[], { key: string; value: string }>('SELECT key, value FROM meta')
          .all()
          .map((r) => [r.key, r.value]),
      );
      const partnerId = meta.get('partner_id');
      if (
        (meta.get('user_id') ?? '').toLowerCase() === userId &&
        (meta.get('base_url') ?? '').replace(/\/+$/, '') === baseUrl &&
        (query.partnerId === null || partnerId === query.partnerId)
      ) {
        const own = partnerId !== undefined && name === journalFileName({ baseUrl, partnerId, userId });
        const rank = own ? 0 : meta.get('user_id') === userId ? 1 : 2;
        if (found === null || rank < found.rank) found = { path: join(dir, name), rank };
      }
    } catch {
      // Not a journal this camroll can read: not the one.
    } finally {
      db.close();
    }
    if (found?.rank === 0) break;
  }
  return found?.path ?? null;
}

/**
 * Earlier releases named a journal after the user id as typed (`--user` in capitals gave
 * another file than the lower-case id the service issues). When this key has no journal yet
 * but one kept under another spelling of the same id exists, it becomes this key's journal
 * (so a sync resumes, nothing is resent): under its own lock, its `meta.user_id` is rewritten,
 * its WAL emptied into the file and the file taken out of WAL mode, so that the file alone is
 * the whole journal; then that one file is renamed, in one step. A crash at any point leaves
 * the old file complete under the old name, found again next time.
 *
 * The WAL can be emptied and left only when no other connection has the file open (a dry run
 * reading it, another camroll looking for its own journal). Then nothing is renamed, and the
 * old file is returned with its lock still held: this run works on it where it is, and a
 * later run takes it over. null: taken over, or nothing to take over.
 */
function adoptOtherSpelling(
  dir: string,
  key: JournalKey,
  path: string,
  beforeRename?: () => void,
): { path: string; lock: ProcessLock } | null {
  const other = findJournalByMeta(dir, key, basename(path));
  if (other === null) return null;
  const lock = acquireLock(`${other}.lock`, JOURNAL_LOCK_WHAT);
  let kept = false;
  try {
    if (!existsSync(other)) return null; // Another camroll adopted it meanwhile.
    const db = openVersionedDatabase({
      path: other,
      ...JOURNAL_DB,
    });
    let alone: boolean;
    try {
      db.prepare("UPDATE meta SET value = ? WHERE key = 'user_id'").run(key.userId.toLowerCase());
      alone = leaveWal(db);
    } finally {
      db.close();
    }
    if (!alone) {
      kept = true;
      return { path: other, lock };
    }
    beforeRename?.();
    try {
      // Left by a crash of a journal that never got its main file: ours to clear (its lock is held).
      for (const suffix of ['-wal', '-shm']) rmSync(`${path}${suffix}`, { force: true });
      renameSync(other, path);
    } catch (error) {
      throw new LocalStateError(
        'journal_error',
        `cannot rename the sync journal ${other} to ${path}: ${describeFsError(error as NodeJS.ErrnoException)}`,
        { cause: error },
      );
    }
    return null;
  } finally {
    if (!kept) lock.release();
  }
}

/**
 * Empties a journal's WAL into its file and takes it out of WAL mode, so that nothing is left
 * beside the file; false when another connection has it open. A reader would make the
 * checkpoint wait, and the mode switch fails anyway while any connection is open, so it does
 * not wait: the takeover is tried again at the next run.
 */
function leaveWal(db: Database.Database): boolean {
  db.pragma('busy_timeout = 0');
  const [row] = db.pragma('wal_checkpoint(TRUNCATE)') as Array<{ busy: number; log: number; checkpointed: number }>;
  if (row === undefined || row.busy !== 0 || row.log !== row.checkpointed) return false;
  try {
    return db.pragma('journal_mode = DELETE', { simple: true }) === 'delete';
  } catch (error) {
    const code = String((error as { code?: unknown }).code ?? '');
    if (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED')) return false;
    throw error;
  }
}

/** A new journal records the key it belongs to (a dry run finds it by these); the user id in lower case. */
function writeKey(db: Database.Database, key: JournalKey): void {
  const insert = db.prepare('INSERT OR IGNORE INTO meta (key, value) VALUES (?, ?)');
  insert.run('base_url', key.baseUrl);
  insert.run('partner_id', key.partnerId);
  insert.run('user_id', key.userId.toLowerCase());
}

function createJournal(db: Database.Database, path: string, now: () => string, lock: ProcessLock): Journal {
  const stmts = {
    fingerprint: db.prepare<[string], Buffer>('SELECT fingerprint FROM outcomes WHERE id = ?').pluck(),
    insertBatch: db.prepare<[number, number]>(
      "INSERT INTO batches (pass_id, status, items) VALUES (?, 'in_flight', ?)",
    ),
    // Row by row inside the batch's one transaction: prepared statements with the fingerprint
    // bound as a blob cost half of encoding the batch as JSON for json_each (and unhex).
    insertPending: db.prepare<[string, number]>('INSERT OR REPLACE INTO pending (id, batch_id) VALUES (?, ?)'),
    deletePending: db.prepare<[string]>('DELETE FROM pending WHERE id = ?'),
    upsertOutcome: db.prepare<[string, Buffer, number, number]>(
      'INSERT OR REPLACE INTO outcomes (id, fingerprint, outcome, batch_id) VALUES (?, ?, ?, ?)',
    ),
    anyOutcome: db.prepare<[], number>('SELECT EXISTS (SELECT 1 FROM outcomes)').pluck(),
    setBatch: db.prepare<[string, string | null, number]>('UPDATE batches SET status = ?, error = ? WHERE id = ?'),
    insertPass: db.prepare<[string, string]>("INSERT INTO passes (kind, status, started_at) VALUES (?, 'running', ?)"),
    setPass: db.prepare<[string, string, number]>('UPDATE passes SET status = ?, finished_at = ? WHERE id = ?'),
    passKind: db.prepare<[number], PassKind>('SELECT kind FROM passes WHERE id = ?').pluck(),
    lastPass: db.prepare<
      [],
      { id: number; kind: PassKind; status: PassStatus; started_at: string; finished_at: string | null }
    >('SELECT id, kind, status, started_at, finished_at FROM passes ORDER BY id DESC LIMIT 1'),
    countOutcomes: db.prepare<[], { accepted: number | null; rejected: number | null }>(
      'SELECT SUM(outcome = 0) AS accepted, SUM(outcome <> 0) AS rejected FROM outcomes',
    ),
    countPending: db.prepare<[], number>('SELECT COUNT(*) FROM pending').pluck(),
  };

  // A run killed mid-way leaves 'running' passes and 'in_flight' batches: close them out.
  const recovery = db.transaction((): Recovery => {
    const passes = db.prepare("UPDATE passes SET status = 'interrupted' WHERE status = 'running'").run().changes;
    const batches = db.prepare("UPDATE batches SET status = 'interrupted' WHERE status = 'in_flight'").run().changes;
    return { interruptedPasses: passes, interruptedBatches: batches, pendingItems: stmts.countPending.get() ?? 0 };
  })();

  // A pass that completed read every file of the library and had every batch answered: what
  // is still pending belongs to files that are gone or changed (a new id), never to resend.
  // A watch batch read only the files that changed: what the library pass left pending stays.
  const finishPass = db.transaction((passId: number, status: Exclude<PassStatus, 'running'>) => {
    stmts.setPass.run(status, now(), passId);
    if (status === 'complete' && stmts.passKind.get(passId) !== 'watch') db.exec('DELETE FROM pending');
  });

  const complete = db.transaction((batchId: number, outcome: BatchOutcome) => {
    const answer = (item: JournalItem, code: number): void => {
      stmts.upsertOutcome.run(item.id, item.fingerprint, code, batchId);
      stmts.deletePending.run(item.id);
    };
    for (const item of outcome.accepted) answer(item, OUTCOME_CODES.accepted);
    for (const item of outcome.rejected) answer(item, OUTCOME_CODES[item.reason]);
    stmts.setBatch.run('done', null, batchId);
  });

  const begin = db.transaction((passId: number, items: readonly JournalItem[]): number => {
    const batchId = Number(stmts.insertBatch.run(passId, items.length).lastInsertRowid);
    for (const item of items) stmts.insertPending.run(item.id, batchId);
    return batchId;
  });

  // Whether any answer existed when the current pass began. The pipeline asks about each id
  // at most once per pass (it drops repeats first), so when the journal held no answers then,
  // no id can be known and the lookup is skipped: a first sync makes no query per item.
  let answersBeforePass = stmts.anyOutcome.get() === 1;

  const answerFor = (item: JournalItem): JournalAnswer => {
    if (!answersBeforePass) return 'none';
    const stored = stmts.fingerprint.get(item.id);
    if (stored === undefined) return 'none';
    // SQLite hands a BLOB over as a Buffer of its own: compared as it is, not copied.
    return stored.equals(item.fingerprint) ? 'same' : 'other';
  };

  return {
    path,
    recovery,
    answerFor,
    beginBatch: (passId, items) => begin(passId, items),
    completeBatch: (batchId, outcome) => complete(batchId, outcome),
    failBatch: (batchId, error) => void stmts.setBatch.run('failed', error, batchId),
    abandonBatch: (batchId) => void stmts.setBatch.run('interrupted', null, batchId),
    beginPass: (kind) => {
      answersBeforePass = stmts.anyOutcome.get() === 1;
      return Number(stmts.insertPass.run(kind, now()).lastInsertRowid);
    },
    finishPass: finishPass,
    lastPass: () => {
      const row = stmts.lastPass.get();
      return row
        ? { id: row.id, kind: row.kind, status: row.status, startedAt: row.started_at, finishedAt: row.finished_at }
        : null;
    },
    counts: () => {
      const row = stmts.countOutcomes.get();
      return { accepted: row?.accepted ?? 0, rejected: row?.rejected ?? 0, pending: stmts.countPending.get() ?? 0 };
    },
    clear: () => {
      db.transaction(() => {
        db.exec('DELETE FROM outcomes; DELETE FROM pending;');
      })();
    },
    close: () => {
      try {
        db.close();
      } finally {
        lock.release();
      }
    },
  };
}
