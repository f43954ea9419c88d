import {
  copyFileSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { findJournal, openJournalReader } from '../../src/sync/journal-reader.js';
import {
  fingerprintMedia,
  JOURNAL_SCHEMA_VERSION,
  journalFileName,
  openJournal,
  type JournalKey,
} from '../../src/sync/journal.js';
import { acquireLock } from '../../src/util/process-lock.js';
import { earlierJournalFileName, keepAsEarlierRelease } from '../helpers/journal.js';

const key: JournalKey = { baseUrl: 'http://127.0.0.1:1/v1', partnerId: 'local', userId: 'u1' };
const item = (id: string, lat = 1): { id: string; fingerprint: Buffer } => ({
  id,
  fingerprint: fingerprintMedia({ id, latitude: lat }),
});

describe('journal', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'camroll-journal-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('names one file per (base URL, partner, user), trailing slash ignored', () => {
    expect(journalFileName(key)).toBe(journalFileName({ ...key, baseUrl: `${key.baseUrl}/` }));
    expect(journalFileName(key)).not.toBe(journalFileName({ ...key, partnerId: 'other' }));
    expect(journalFileName(key)).not.toBe(journalFileName({ ...key, userId: 'u2' }));
    expect(journalFileName(key)).toMatch(/^[0-9a-f]{32}\.sqlite$/);
  });

  it('fingerprints metadata independent of member order and sensitive to values', () => {
    expect(fingerprintMedia({ a: 1, b: null })).toEqual(fingerprintMedia({ b: null, a: 1 }));
    expect(fingerprintMedia({ a: 1, b: undefined })).toEqual(fingerprintMedia({ a: 1, b: null }));
    expect(fingerprintMedia({ a: 1 })).not.toEqual(fingerprintMedia({ a: 2 }));
  });

  it('keeps the fingerprints journals already hold (first 8 bytes of SHA-256 over the sorted members)', () => {
    const media = {
      id: 'sha256:d6052736bbae5e3ff46cd31ef8e6d03bb514eb3385725e76be51398a2fbf1454',
      taken_at: '2023-08-15T11:52:43Z',
      latitude: -39.992499,
      longitude: -121.126059,
      media_type: 'photo',
      filename: 'IMG_000486.jpg',
      duration_seconds: null,
      device_make: 'Camroll',
      device_model: 'Test Cam',
      device_lens_model: null,
    };
    expect(fingerprintMedia(media).toString('hex')).toBe('ec1e9b2dc5ccbe02');
    expect(fingerprintMedia({ id: 'x', thumbnail_url: undefined, latitude: 1.5 }).toString('hex')).toBe(
      'f4899b969e5dfac3',
    );
  });

  it('writes batches larger than one statement holds, row for row', () => {
    const items = Array.from({ length: 137 }, (_, i) => item(`id-${i}`));
    const j = openJournal({ dir, key });
    const pass = j.beginPass('full');
    const batch = j.beginBatch(pass, items);
    expect(j.counts()).toEqual({ accepted: 0, rejected: 0, pending: 137 });
    // 120 accepted and 10 rejected (reasons in turn); the last 7 unanswered stay pending.
    const reasons = ['missing_coordinates', 'missing_taken_at', 'invalid'] as const;
    j.completeBatch(batch, {
      accepted: items.slice(0, 120),
      rejected: items.slice(120, 130).map((entry, i) => ({ ...entry, reason: reasons[i % 3]! })),
    });
    expect(j.counts()).toEqual({ accepted: 120, rejected: 10, pending: 7 });
    j.close();
    const db = new Database(j.path, { readonly: true });
    const rows = db
      .prepare<[], { id: string; outcome: number; batch_id: number }>('SELECT id, outcome, batch_id FROM outcomes')
      .all();
    const pending = db.prepare<[], string>('SELECT id FROM pending ORDER BY id').pluck().all();
    db.close();
    expect(rows).toHaveLength(130);
    for (const row of rows) {
      const i = Number(row.id.slice(3));
      expect(row.batch_id).toBe(batch);
      expect(row.outcome).toBe(i < 120 ? 0 : [1, 2, 3][(i - 120) % 3]);
    }
    expect(pending).toEqual(
      items
        .slice(130)
        .map((entry) => entry.id)
        .sort(),
    );
    const reopened = openJournal({ dir, key });
    reopened.beginPass('full');
    expect(items.map((entry) => reopened.answerFor(entry) === 'same')).toEqual(items.map((_, i) => i < 130));
    reopened.close();
  });

  it('knows answered ids only for the same metadata, and persists across reopen', () => {
    const j = openJournal({ dir, key });
    const pass = j.beginPass('full');
    const batch = j.beginBatch(pass, [item('a'), item('b'), item('c')]);
    expect(j.counts()).toEqual({ accepted: 0, rejected: 0, pending: 3 });
    expect(j.answerFor(item('a'))).not.toBe('same');
    j.completeBatch(batch, {
      accepted: [item('a'), item('b')],
      rejected: [{ ...item('c'), reason: 'missing_taken_at' }],
    });
    j.finishPass(pass, 'complete');
    expect(j.counts()).toEqual({ accepted: 2, rejected: 1, pending: 0 });
    j.close();

    const again = openJournal({ dir, key });
    expect(again.recovery).toEqual({ interruptedPasses: 0, interruptedBatches: 0, pendingItems: 0 });
    expect(again.answerFor(item('a'))).toBe('same');
    expect(again.answerFor(item('c'))).toBe('same');
    expect(again.answerFor(item('a', 2))).toBe('other');
    expect(again.answerFor(item('z'))).toBe('none');
    expect(again.lastPass()).toMatchObject({ kind: 'full', status: 'complete' });
    again.close();
  });

  it('keeps failed batches pending and recovers an unclean end', () => {
    const j = openJournal({ dir, key });
    const pass = j.beginPass('incremental');
    const failed = j.beginBatch(pass, [item('a')]);
    j.failBatch(failed, 'internal_error: boom');
    j.beginBatch(pass, [item('b'), item('c')]);
    // Simulate kill -9: close without finishing the pass or the second batch.
    j.close();

    const again = openJournal({ dir, key });
    expect(again.recovery).toEqual({ interruptedPasses: 1, interruptedBatches: 1, pendingItems: 3 });
    expect(again.answerFor(item('a'))).not.toBe('same');
    expect(again.lastPass()).toMatchObject({ status: 'interrupted' });
    const pass2 = again.beginPass('incremental');
    const batch = again.beginBatch(pass2, [item('a'), item('b'), item('c')]);
    again.completeBatch(batch, { accepted: [item('a'), item('b'), item('c')], rejected: [] });
    expect(again.counts()).toEqual({ accepted: 3, rejected: 0, pending: 0 });
    again.clear();
    expect(again.counts()).toEqual({ accepted: 0, rejected: 0, pending: 0 });
    again.close();
  });

  it('refuses a file that is not a journal, or one written by a newer camroll, with journal_error', () => {
    writeFileSync(join(dir, journalFileName(key)), 'not a database, '.repeat(64));
    expect(() => openJournal({ dir, key })).toThrow(
      expect.objectContaining({ code: 'journal_error', message: expect.stringContaining('not a database') }),
    );

    const newerKey = { ...key, userId: 'u2' };
    const db = new Database(join(dir, journalFileName(newerKey)));
    db.pragma('user_version = 99');
    db.close();
    expect(() => openJournal({ dir, key: newerKey })).toThrow(
      expect.objectContaining({ code: 'journal_error', message: expect.stringContaining('newer than this camroll') }),
    );
  });

  it('is held by one sync at a time: a second open is refused, naming the holder', () => {
    const first = openJournal({ dir, key });
    try {
      expect(() => openJournal({ dir, key })).toThrow(
        expect.objectContaining({ code: 'locked', message: expect.stringContaining(`process ${process.pid} on `) }),
      );
    } finally {
      first.close();
    }
    // Released on close: the next sync opens it.
    openJournal({ dir, key }).close();
  });

  it('takes over a lock whose process is gone, and refuses one held on another host', () => {
    const lock = join(dir, `${journalFileName(key)}.lock`);
    // A pid that no process has: beyond the kernel's pid range.
    writeFileSync(lock, JSON.stringify({ pid: 2 ** 22 + 1, host: hostname(), started_at: '2026-01-01T00:00:00Z' }));
    openJournal({ dir, key }).close();
    writeFileSync(lock, JSON.stringify({ pid: 4242, host: 'nas-backup-box', started_at: '2026-01-01T00:00:00Z' }));
    expect(() => openJournal({ dir, key })).toThrow(/in use by process 4242 on nas-backup-box.*delete .*\.lock/);
  });

  it('a pass that completes clears what is still pending: files gone or changed since they failed', () => {
    const j = openJournal({ dir, key });
    const first = j.beginPass('full');
    j.failBatch(j.beginBatch(first, [item('deleted-later'), item('kept')]), 'ECONNREFUSED: refused');
    j.finishPass(first, 'failed');
    expect(j.counts().pending).toBe(2);
    // The next pass resends what still exists; the deleted file is simply not there.
    const second = j.beginPass('incremental');
    j.completeBatch(j.beginBatch(second, [item('kept')]), { accepted: [item('kept')], rejected: [] });
    j.finishPass(second, 'complete');
    expect(j.counts().pending).toBe(0);
    j.close();
    const reopened = openJournal({ dir, key });
    expect(reopened.recovery.pendingItems).toBe(0);
    reopened.close();
  });

  it('a watch batch that completes keeps what the library pass left pending (it read only the files that changed)', () => {
    const j = openJournal({ dir, key });
    const pass = j.beginPass('full');
    j.failBatch(j.beginBatch(pass, [item('failed-in-pass')]), 'ECONNRESET: reset');
    j.finishPass(pass, 'failed');
    const watch = j.beginPass('watch');
    j.completeBatch(j.beginBatch(watch, [item('new-photo')]), { accepted: [item('new-photo')], rejected: [] });
    j.finishPass(watch, 'complete');
    expect(j.counts()).toEqual({ accepted: 1, rejected: 0, pending: 1 });
    expect(j.lastPass()).toMatchObject({ kind: 'watch', status: 'complete' });
    j.close();
  });

  it('a pass that fails or is interrupted keeps its pending items', () => {
    const j = openJournal({ dir, key });
    const pass = j.beginPass('full');
    j.abandonBatch(j.beginBatch(pass, [item('a')]));
    j.finishPass(pass, 'interrupted');
    expect(j.counts().pending).toBe(1);
    j.close();
  });

  it('reads read-only for a dry run: answered, changed, pending or new; found by key or by its own meta', () => {
    const j = openJournal({ dir, key });
    const pass = j.beginPass('full');
    j.completeBatch(j.beginBatch(pass, [item('a'), item('b')]), { accepted: [item('a'), item('b')], rejected: [] });
    j.failBatch(j.beginBatch(pass, [item('p')]), 'ECONNRESET: reset');
    j.finishPass(pass, 'failed');
    j.close();
    const path = findJournal(dir, key);
    expect(path).toBe(join(dir, journalFileName(key)));
    expect(findJournal(dir, { ...key, partnerId: null })).toBe(path);
    expect(findJournal(dir, { ...key, userId: 'someone-else', partnerId: null })).toBeNull();
    const reader = openJournalReader(path as string);
    try {
      expect(reader.plan('a', item('a').fingerprint)).toBe('answered');
      expect(reader.plan('b', item('b', 2).fingerprint)).toBe('changed');
      expect(reader.plan('p', item('p').fingerprint)).toBe('pending');
      expect(reader.plan('z', item('z').fingerprint)).toBe('new');
    } finally {
      reader.close();
    }
    // Read-only: no lock was taken, so a real sync can open it meanwhile.
    openJournal({ dir, key }).close();
  });

  it('takes over a journal an earlier release kept under the user id in capitals: resumed, nothing resent', () => {
    const lower = { ...key, userId: '7d9f6a52-1c3b-4f0e-9a1d-2b8c4e6f0a11' };
    const typed = { ...lower, userId: lower.userId.toUpperCase() };
    // What the earlier release wrote for `--user` in capitals: the file named and keyed by the id as typed.
    const earlier = openJournal({ dir, key: lower });
    const pass = earlier.beginPass('full');
    earlier.completeBatch(earlier.beginBatch(pass, [item('a'), item('b')]), {
      accepted: [item('a'), item('b')],
      rejected: [],
    });
    earlier.beginBatch(pass, [item('p')]); // interrupted: p stays pending
    earlier.close();
    const earlierPath = keepAsEarlierRelease(dir, lower, typed.userId);
    const path = join(dir, journalFileName(lower));

    // A dry run finds it, with the host's partner or without.
    expect(findJournal(dir, lower)).toBe(earlierPath);
    expect(findJournal(dir, { ...lower, partnerId: null })).toBe(earlierPath);
    expect(findJournal(dir, { ...lower, partnerId: 'other' })).toBeNull();
    const reader = openJournalReader(earlierPath);
    expect(reader.plan('a', item('a').fingerprint)).toBe('answered');
    reader.close();

    const j = openJournal({ dir, key: lower });
    try {
      expect(j.path).toBe(path);
      expect(j.recovery).toEqual({ interruptedPasses: 1, interruptedBatches: 1, pendingItems: 1 });
      expect(j.answerFor(item('a'))).toBe('same');
      expect(j.answerFor(item('b'))).toBe('same');
      expect(j.counts()).toEqual({ accepted: 2, rejected: 0, pending: 1 });
    } finally {
      j.close();
    }
    expect(readdirSync(dir).sort()).toEqual([journalFileName(lower)]);
    const db = new Database(path, { readonly: true });
    expect(db.prepare("SELECT value FROM meta WHERE key = 'user_id'").pluck().get()).toBe(lower.userId);
    db.close();
    expect(findJournal(dir, lower)).toBe(path);
    expect(findJournal(dir, { ...lower, partnerId: null })).toBe(path);
  });

  it('uses its own journal, never a stale copy in capitals beside it: a dry run, with or without the host, and a sync', () => {
    // Ids whose copy in capitals sorts before their own file and after it: found by order, a
    // dry run would read the stale one for some of them.
    const ids = ['0', '1', '2', '3', '4', '5'].map((d) => `7d9f6a52-1c3b-4f0e-9a1d-2b8c4e6f0a1${d}`);
    const staleFirst = ids.map((id) => {
      const lower = { ...key, userId: id };
      return earlierJournalFileName({ ...lower, userId: id.toUpperCase() }) < journalFileName(lower);
    });
    expect(staleFirst).toContain(true);
    expect(staleFirst).toContain(false);
    for (const id of ids) {
      const at = join(dir, id);
      const lower = { ...key, userId: id };
      // The stale copy (an earlier release ran again after the takeover): only 'a' answered.
      const stale = openJournal({ dir: at, key: lower });
      const p1 = stale.beginPass('full');
      stale.completeBatch(stale.beginBatch(p1, [item('a')]), { accepted: [item('a')], rejected: [] });
      stale.finishPass(p1, 'complete');
      stale.close();
      const stalePath = keepAsEarlierRelease(at, lower, id.toUpperCase());
      // The journal the sync uses, made apart so that making it takes nothing over: 'a', 'b' and 'c' answered.
      const own = openJournal({ dir: join(at, 'apart'), key: lower });
      const p2 = own.beginPass('full');
      const all = [item('a'), item('b'), item('c')];
      own.completeBatch(own.beginBatch(p2, all), { accepted: all, rejected: [] });
      own.finishPass(p2, 'complete');
      own.close();
      const path = join(at, journalFileName(lower));
      renameSync(join(at, 'apart', journalFileName(lower)), path);

      for (const query of [lower, { ...lower, partnerId: null }]) {
        expect(findJournal(at, query)).toBe(path);
        const reader = openJournalReader(findJournal(at, query) as string);
        expect(['a', 'b', 'c'].map((i) => reader.plan(i, item(i).fingerprint))).toEqual([
          'answered',
          'answered',
          'answered',
        ]);
        reader.close();
      }
      const j = openJournal({ dir: at, key: lower });
      try {
        expect(j.path).toBe(path);
        expect(j.counts()).toEqual({ accepted: 3, rejected: 0, pending: 0 });
      } finally {
        j.close();
      }
      // The stale copy is left as it was, not taken over.
      const db = new Database(stalePath, { readonly: true });
      expect(db.prepare("SELECT value FROM meta WHERE key = 'user_id'").pluck().get()).toBe(id.toUpperCase());
      expect(db.prepare('SELECT COUNT(*) FROM outcomes').pluck().get()).toBe(1);
      db.close();
    }
  });

  it('without its own file, prefers a journal keeping the id in lower case to one in capitals', () => {
    const order: boolean[] = [];
    for (const d of ['0', '1', '2', '3', '4', '5']) {
      const lower = { ...key, userId: `7d9f6a52-1c3b-4f0e-9a1d-2b8c4e6f0a1${d}` };
      const at = join(dir, d);
      // Each made apart (so that nothing is taken over), then moved in under a name not the sync's.
      const made = (apart: string, answered: string[]): string => {
        const j = openJournal({ dir: join(at, apart), key: lower });
        const pass = j.beginPass('full');
        const items = answered.map((i) => item(i));
        j.completeBatch(j.beginBatch(pass, items), { accepted: items, rejected: [] });
        j.close();
        return join(at, apart, journalFileName(lower));
      };
      // Kept in lower case (a takeover that could not rename the file): 'a' and 'b' answered.
      const exact = join(at, earlierJournalFileName({ ...lower, userId: lower.userId.replace('d', 'D') }));
      renameSync(made('exact', ['a', 'b']), exact);
      // An earlier release's journal in capitals: only 'a'.
      made('upper', ['a']);
      const upper = keepAsEarlierRelease(join(at, 'upper'), lower, lower.userId.toUpperCase());
      const upperIn = join(at, basename(upper));
      renameSync(upper, upperIn);
      order.push(basename(upperIn) < basename(exact));
      expect(findJournal(at, { ...lower, partnerId: null })).toBe(exact);
      expect(findJournal(at, lower)).toBe(exact);
      // A sync takes over that one, and leaves the one in capitals alone.
      const j = openJournal({ dir: at, key: lower });
      expect(j.counts().accepted).toBe(2);
      j.close();
      expect(existsSync(upperIn)).toBe(true);
    }
    // Found whichever name sorts first.
    expect(order).toContain(true);
    expect(order).toContain(false);
  });

  it('leaves a journal kept under another spelling alone while its sync holds it', () => {
    const lower = { ...key, userId: '7d9f6a52-1c3b-4f0e-9a1d-2b8c4e6f0a11' };
    openJournal({ dir, key: lower }).close();
    const earlierPath = keepAsEarlierRelease(dir, lower, lower.userId.toUpperCase());
    // An earlier release syncing on it holds its lock, as a sync does.
    const held = acquireLock(`${earlierPath}.lock`, 'the journal');
    try {
      expect(() => openJournal({ dir, key: lower })).toThrow(expect.objectContaining({ code: 'locked' }));
    } finally {
      held.release();
    }
    expect(existsSync(join(dir, journalFileName(lower)))).toBe(false);
  });

  /**
   * What an earlier release killed mid-sync leaves: its journal under the id in capitals with
   * most of it still in the WAL (it checkpoints every ~40 MiB). Made apart and copied in, file
   * and WAL, while the writing connection is open (as a kill -9 leaves them). Returns its path.
   */
  const killedEarlierRelease = (lower: JournalKey, answered: string[]): string => {
    const apart = join(dir, 'apart');
    const j = openJournal({ dir: apart, key: lower });
    const pass = j.beginPass('full');
    const items = answered.map((i) => item(i));
    j.completeBatch(j.beginBatch(pass, items), { accepted: items, rejected: [] });
    const from = join(apart, journalFileName(lower));
    const meta = new Database(from);
    meta.prepare("UPDATE meta SET value = ? WHERE key = 'user_id'").run(lower.userId.toUpperCase());
    meta.close();
    const to = join(dir, earlierJournalFileName({ ...lower, userId: lower.userId.toUpperCase() }));
    expect(statSync(`${from}-wal`).size).toBeGreaterThan(0);
    copyFileSync(from, to);
    copyFileSync(`${from}-wal`, `${to}-wal`);
    j.close();
    rmSync(apart, { recursive: true });
    return to;
  };
  const beside = (): string[] => readdirSync(dir).filter((n) => n.endsWith('-wal') || n.endsWith('-shm'));
  const answeredIn = (path: string): number => {
    const db = new Database(path, { readonly: true });
    try {
      return db.prepare<[], number>('SELECT COUNT(*) FROM outcomes').pluck().get() as number;
    } finally {
      db.close();
    }
  };

  it('takes over a journal whose WAL holds the answers: one file renamed, nothing left beside either name', () => {
    const lower = { ...key, userId: '7d9f6a52-1c3b-4f0e-9a1d-2b8c4e6f0a11' };
    const ids = Array.from({ length: 300 }, (_, i) => `id-${i}`);
    const earlier = killedEarlierRelease(lower, ids);
    const path = join(dir, journalFileName(lower));
    // A WAL left at the new name by a crash (of another journal for this name that never got
    // its main file): valid frames, which must not be read into the file taken over.
    const apart = join(dir, 'stray');
    const stray = openJournal({ dir: apart, key: lower });
    const pass = stray.beginPass('full');
    stray.completeBatch(stray.beginBatch(pass, [item('stray')]), { accepted: [item('stray')], rejected: [] });
    copyFileSync(join(apart, `${journalFileName(lower)}-wal`), `${path}-wal`);
    stray.close();
    rmSync(apart, { recursive: true });
    const j = openJournal({ dir, key: lower });
    try {
      expect(j.path).toBe(path);
      expect(j.counts().accepted).toBe(300);
      expect(j.answerFor(item('stray'))).not.toBe('same');
      expect(existsSync(earlier)).toBe(false);
    } finally {
      j.close();
    }
    expect(beside()).toEqual([]);
    expect(readdirSync(dir)).toEqual([journalFileName(lower)]);
    expect(answeredIn(path)).toBe(300);
  });

  it('takes nothing over while a reader has the old journal open: works on it where it is, loses nothing', () => {
    const lower = { ...key, userId: '7d9f6a52-1c3b-4f0e-9a1d-2b8c4e6f0a11' };
    const earlier = killedEarlierRelease(lower, ['a', 'b', 'c']);
    const path = join(dir, journalFileName(lower));
    // A dry run reading it between two items, then one in the middle of a read.
    const dry = openJournalReader(earlier);
    const reading = new Database(earlier, { readonly: true });
    for (const inRead of [false, true]) {
      if (inRead) {
        reading.exec('BEGIN');
        reading.prepare('SELECT COUNT(*) FROM outcomes').get();
      }
      const j = openJournal({ dir, key: lower });
      try {
        expect(j.path).toBe(earlier);
        expect(j.counts()).toEqual({ accepted: inRead ? 4 : 3, rejected: 0, pending: 0 });
        // Still held by this run, under either name.
        expect(() => openJournal({ dir, key: lower })).toThrow(expect.objectContaining({ code: 'locked' }));
        const pass = j.beginPass('incremental');
        j.completeBatch(j.beginBatch(pass, [item(`d${inRead}`)]), { accepted: [item(`d${inRead}`)], rejected: [] });
        j.finishPass(pass, 'complete');
      } finally {
        j.close();
      }
      expect(existsSync(path)).toBe(false);
      expect(dry.plan('a', item('a').fingerprint)).toBe('answered');
    }
    reading.exec('COMMIT');
    reading.close();
    dry.close();
    expect(readdirSync(dir).filter((n) => n.endsWith('.lock'))).toEqual([]);
    // The reader gone, the next run takes it over whole.
    const j = openJournal({ dir, key: lower });
    expect(j.path).toBe(path);
    expect(j.counts().accepted).toBe(5);
    j.close();
    expect(readdirSync(dir)).toEqual([journalFileName(lower)]);
  });

  it('a crash right before the rename leaves the old journal whole on its own, found and taken over next time', () => {
    const lower = { ...key, userId: '7d9f6a52-1c3b-4f0e-9a1d-2b8c4e6f0a11' };
    const ids = Array.from({ length: 300 }, (_, i) => `id-${i}`);
    const earlier = killedEarlierRelease(lower, ids);
    const crash = new Error('killed');
    expect(() =>
      openJournal({
        dir,
        key: lower,
        beforeTakeoverRename: () => {
          throw crash;
        },
      }),
    ).toThrow(crash);
    // The old file alone, its WAL emptied into it: every answer is in the one file.
    expect(readdirSync(dir)).toEqual([basename(earlier)]);
    expect(answeredIn(earlier)).toBe(300);
    expect(findJournal(dir, { ...lower, partnerId: null })).toBe(earlier);
    expect(findJournal(dir, lower)).toBe(earlier);
    const j = openJournal({ dir, key: lower });
    expect(j.path).toBe(join(dir, journalFileName(lower)));
    expect(j.counts().accepted).toBe(300);
    j.close();
  });

  it('keys the journal by the user id in lower case, however the caller spells it', () => {
    const lower = { ...key, userId: '7d9f6a52-1c3b-4f0e-9a1d-2b8c4e6f0a11' };
    const upper = { ...lower, userId: lower.userId.toUpperCase() };
    const path = join(dir, journalFileName(lower));
    // Created under the id in capitals: the lower-case file, and the lower-case id in its meta.
    const created = openJournal({ dir, key: upper });
    expect(created.path).toBe(path);
    const pass = created.beginPass('full');
    created.completeBatch(created.beginBatch(pass, [item('a')]), { accepted: [item('a')], rejected: [] });
    created.finishPass(pass, 'complete');
    created.close();
    const db = new Database(path, { readonly: true });
    expect(db.prepare("SELECT value FROM meta WHERE key = 'user_id'").pluck().get()).toBe(lower.userId);
    db.close();
    // Opened again under either spelling: the same file, kept where it is (never taken over to capitals).
    for (const spelling of [upper, lower, upper]) {
      const j = openJournal({ dir, key: spelling });
      expect(j.path).toBe(path);
      expect(j.answerFor(item('a'))).toBe('same');
      j.close();
      expect(readdirSync(dir).filter((n) => n.endsWith('.sqlite'))).toEqual([journalFileName(lower)]);
    }
    expect(findJournal(dir, upper)).toBe(path);
    expect(findJournal(dir, { ...upper, partnerId: null })).toBe(path);
  });

  it('a dry run refuses a journal written by a newer camroll, naming the file', () => {
    openJournal({ dir, key }).close();
    const path = join(dir, journalFileName(key));
    const db = new Database(path);
    db.pragma(`user_version = ${JOURNAL_SCHEMA_VERSION + 1}`);
    db.close();
    expect(() => openJournalReader(path)).toThrow(
      expect.objectContaining({
        code: 'journal_error',
        message: expect.stringContaining(`${path} was written by a newer camroll`),
      }),
    );
  });

  it("without the host, a newer camroll's journal is found by its meta, then refused by name", () => {
    openJournal({ dir, key }).close();
    const path = join(dir, journalFileName(key));
    const db = new Database(path);
    db.pragma(`user_version = ${JOURNAL_SCHEMA_VERSION + 1}`);
    db.close();
    expect(findJournal(dir, { ...key, partnerId: null })).toBe(path);
    expect(findJournal(dir, { ...key, userId: 'someone-else', partnerId: null })).toBeNull();
    const message = expect.stringContaining('newer camroll');
    const refused = expect.objectContaining({ code: 'journal_error', message });
    expect(() => openJournalReader(path)).toThrow(refused);
  });
});
