import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type Database from 'better-sqlite3';
import { openVersionedDatabase } from '../util/sqlite.js';
import { findJournalByMeta, JOURNAL_DB, journalFileName, type JournalKey } from './journal.js';

/** What a real run would do with an item, from the journal: skip it, or send it and why. */
export type ItemPlan = 'answered' | 'changed' | 'pending' | 'new';

/** A journal opened read-only (a dry run): no lock, no recovery, nothing written. */
export interface JournalReader {
  readonly path: string;
  plan(id: string, fingerprint: Buffer): ItemPlan;
  /** Whether the journal holds any accepted item (a real run clears such a journal when the service has none). */
  hasAccepted(): boolean;
  close(): void;
}

/**
 * Finds a user's journal: by its exact key when the partner id is known (from /health), or
 * else, and for a journal an earlier release kept under the id in capitals, by the base URL,
 * partner and user id kept inside each journal (the id compared ignoring case). Either way the
 * file a real run would open comes first, so a stale copy in capitals beside it is never read.
 */
export function findJournal(
  dir: string,
  key: Omit<JournalKey, 'partnerId'> & { partnerId: string | null },
): string | null {
  if (key.partnerId !== null) {
    const path = join(dir, journalFileName({ ...key, partnerId: key.partnerId }));
    if (existsSync(path)) return path;
  }
  return findJournalByMeta(dir, key);
}

/** A journal through the versioned open, read-only: no lock, no schema change, the file must exist. */
function openReadOnly(path: string): Database.Database {
  return openVersionedDatabase({
    path,
    ...JOURNAL_DB,
    readonly: true,
    probe: 'SELECT 1 FROM outcomes LIMIT 1',
  });
}

/**
 * Opens a journal read-only, through the same versioned open as a sync: a journal written by
 * a newer camroll, or a damaged file, is a clear `journal_error` naming the file.
 */
export function openJournalReader(path: string): JournalReader {
  const db = openReadOnly(path);
  const outcome = db.prepare<[string], Buffer>('SELECT fingerprint FROM outcomes WHERE id = ?').pluck();
  const pending = db.prepare<[string], number>('SELECT 1 FROM pending WHERE id = ?').pluck();
  const anyAccepted = db.prepare<[], number>('SELECT 1 FROM outcomes WHERE outcome = 0 LIMIT 1').pluck();
  return {
    path,
    plan(id, fingerprint) {
      const stored = outcome.get(id);
      // SQLite hands a BLOB over as a Buffer of its own: compared as it is, not copied.
      if (stored !== undefined) return stored.equals(fingerprint) ? 'answered' : 'changed';
      return pending.get(id) === undefined ? 'new' : 'pending';
    },
    hasAccepted: () => anyAccepted.get() !== undefined,
    close: () => db.close(),
  };
}
