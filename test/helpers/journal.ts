import { createHash } from 'node:crypto';
import { renameSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { journalFileName, type JournalKey } from '../../src/sync/journal.js';

/**
 * The file name an earlier release gave a journal: the same hash as `journalFileName`, but of
 * the user id as typed, so `--user` in capitals named another file.
 */
export function earlierJournalFileName(key: JournalKey): string {
  const digest = createHash('sha256')
    .update(JSON.stringify([key.baseUrl.replace(/\/+$/, ''), key.partnerId, key.userId]))
    .digest('hex');
  return `${digest.slice(0, 32)}.sqlite`;
}

/**
 * Turns the closed journal of `key` in `dir` into what an earlier release kept for `typed`
 * (the id in capitals): meta and file name as typed. Returns the new path.
 */
export function keepAsEarlierRelease(dir: string, key: JournalKey, typed: string): string {
  const from = join(dir, journalFileName(key));
  const db = new Database(from);
  db.prepare("UPDATE meta SET value = ? WHERE key = 'user_id'").run(typed);
  db.close();
  const to = join(dir, earlierJournalFileName({ ...key, userId: typed }));
  renameSync(from, to);
  return to;
}
