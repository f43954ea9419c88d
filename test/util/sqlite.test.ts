import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LocalStateError } from '../../src/errors.js';
import {
  isCorruption,
  openVersionedDatabase,
  type Migration,
  type VersionedDatabaseOptions,
} from '../../src/util/sqlite.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'camroll-sqlite-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** The steps of a one-table file: 1 makes the table, 2 an index, 3 a second table. */
const STEPS: readonly Migration[] = [
  { version: 1, up: 'CREATE TABLE t (k TEXT PRIMARY KEY, v TEXT)' },
  { version: 2, up: 'CREATE INDEX t_by_v ON t (v)' },
  { version: 3, up: 'CREATE TABLE u (k TEXT PRIMARY KEY)' },
];

/**
 * Options for a file at `version`, recording the version a new file was found at (the seed runs only then) and every
 * step run.
 */
function options(path: string, version: number, calls: number[] = []): VersionedDatabaseOptions {
  return {
    path,
    what: 'the test store',
    migrations: STEPS.slice(0, version).map((step) => ({
      ...step,
      up: `${step.up}; CREATE TABLE IF NOT EXISTS steps (n INTEGER); INSERT INTO steps VALUES (${step.version})`,
    })),
    codes: { unreadable: 'cache_unreadable', tooNew: 'cache_too_new' },
    seed: () => calls.push(0),
  };
}

/** The steps run on a file, in order (each step records itself in a `steps` table). */
const stepsRun = (path: string): number[] => {
  const db = new Database(path, { readonly: true });
  try {
    return db.prepare<[], number>('SELECT n FROM steps ORDER BY rowid').pluck().all();
  } finally {
    db.close();
  }
};

const versionOf = (path: string): number => {
  const db = new Database(path, { readonly: true });
  try {
    return db.pragma('user_version', { simple: true }) as number;
  } finally {
    db.close();
  }
};

describe('openVersionedDatabase', () => {
  it('creates the folder and a WAL file of mode 0600 with the schema and its version, once', () => {
    const path = join(dir, 'deep', 'er', 'store.sqlite');
    const calls: number[] = [];
    const db = openVersionedDatabase(options(path, 1, calls));
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(db.pragma('busy_timeout', { simple: true })).toBe(5000);
    db.prepare('INSERT INTO t VALUES (?, ?)').run('a', '1');
    db.close();
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(statSync(join(dir, 'deep')).mode & 0o777).toBe(0o700);
    expect(versionOf(path)).toBe(1);
    openVersionedDatabase(options(path, 1, calls)).close();
    expect(calls).toEqual([0]);
  });

  it('upgrades an older file with the steps past the version it found, in order, in one transaction', () => {
    const path = join(dir, 'store.sqlite');
    openVersionedDatabase(options(path, 1)).close();
    expect(stepsRun(path)).toEqual([1]);
    const calls: number[] = [];
    openVersionedDatabase(options(path, 3, calls)).close();
    expect(calls).toEqual([]); // not a new file: no seed
    expect(stepsRun(path)).toEqual([1, 2, 3]);
    expect(versionOf(path)).toBe(3);
    openVersionedDatabase(options(path, 3)).close();
    expect(stepsRun(path)).toEqual([1, 2, 3]);
  });

  it('refuses a list not numbered 1, 2, 3, …', () => {
    const path = join(dir, 'store.sqlite');
    const gap = { ...options(path, 1), migrations: [STEPS[0]!, STEPS[2]!] };
    expect(() => openVersionedDatabase(gap)).toThrow(/migration 2 is numbered 3/);
  });

  it('refuses a file written by a newer version, and leaves it as it was', () => {
    const path = join(dir, 'store.sqlite');
    openVersionedDatabase(options(path, 3)).close();
    const calls: number[] = [];
    expect(() => openVersionedDatabase(options(path, 2, calls))).toThrow(
      expect.objectContaining({
        name: 'LocalStateError',
        code: 'cache_too_new',
        message: expect.stringContaining('upgrade camroll'),
      }),
    );
    expect(calls).toEqual([]);
    expect(versionOf(path)).toBe(3);
  });

  it('creates the schema in one transaction: a failure part way leaves no table and no version', () => {
    const path = join(dir, 'store.sqlite');
    const failing: VersionedDatabaseOptions = {
      ...options(path, 1),
      migrations: [{ version: 1, up: 'CREATE TABLE t (k TEXT); SELECT no_such_function(1)' }],
    };
    expect(() => openVersionedDatabase(failing)).toThrow(
      expect.objectContaining({ code: 'cache_unreadable', message: expect.stringContaining('no_such_function') }),
    );
    const db = new Database(path, { readonly: true });
    expect(db.prepare("SELECT count(*) AS n FROM sqlite_master WHERE name = 't'").get()).toEqual({ n: 0 });
    db.close();
    expect(versionOf(path)).toBe(0);
  });

  it('tells a damaged file from a busy one', () => {
    const damaged = join(dir, 'damaged.sqlite');
    writeFileSync(damaged, 'not a database at all '.repeat(100));
    let error: unknown;
    try {
      openVersionedDatabase(options(damaged, 1));
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(LocalStateError);
    expect(isCorruption(error)).toBe(true);

    const busy = join(dir, 'busy.sqlite');
    const holder = new Database(busy);
    holder.exec('BEGIN EXCLUSIVE');
    try {
      expect(() => openVersionedDatabase({ ...options(busy, 1), busyTimeoutMs: 20 })).toThrow(
        expect.objectContaining({ code: 'cache_unreadable', cause: expect.objectContaining({ code: 'SQLITE_BUSY' }) }),
      );
      try {
        openVersionedDatabase({ ...options(busy, 1), busyTimeoutMs: 20 });
      } catch (caught) {
        expect(isCorruption(caught)).toBe(false);
      }
    } finally {
      holder.exec('ROLLBACK');
      holder.close();
    }
  });

  it('waits for another process that holds a new file (SQLite refuses the switch to WAL at once, without its busy handler)', async () => {
    const path = join(dir, 'new.sqlite');
    const holder = new Database(path);
    holder.exec('CREATE TABLE held (a)');
    holder.close();
    // Another process holds the write lock for a moment, as a second scan creating the same cache does.
    const worker = new Worker(
      `const { parentPort, workerData } = require('node:worker_threads');
       const db = new (require(workerData.module))(workerData.path);
       db.exec('BEGIN IMMEDIATE');
       parentPort.postMessage('held');
       setTimeout(() => { db.exec('COMMIT'); db.close(); parentPort.postMessage('released'); }, 150);`,
      { eval: true, workerData: { path, module: createRequire(import.meta.url).resolve('better-sqlite3') } },
    );
    const messages: string[] = [];
    const released = new Promise<void>((resolve, reject) => {
      worker.on('message', (message: string) => {
        messages.push(message);
        if (message === 'released') resolve();
      });
      worker.on('error', reject);
    });
    await new Promise<void>((resolve) => worker.once('message', () => resolve()));
    const db = openVersionedDatabase({ ...options(path, 1), busyTimeoutMs: 10_000 });
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(versionOf(path)).toBe(1);
    db.close();
    await released;
    expect(messages).toEqual(['held', 'released']);
    await worker.terminate();
  });

  it('keeps the journal mode asked for: a rollback journal set at open, kept at close, nothing left beside it', () => {
    const path = join(dir, 'store.sqlite');
    const db = openVersionedDatabase({ ...options(path, 1), journalMode: 'delete' });
    expect(db.pragma('journal_mode', { simple: true })).toBe('delete');
    // A rollback journal needs FULL to survive a power cut; NORMAL is for WAL.
    expect(db.pragma('synchronous', { simple: true })).toBe(2);
    db.prepare('INSERT INTO t VALUES (?, ?)').run('a', '1');
    expect(readdirSync(dir)).toEqual(['store.sqlite']);
    db.close();
    expect(statSync(path).mode & 0o777).toBe(0o600);
    const again = new Database(path, { readonly: true });
    expect(again.pragma('journal_mode', { simple: true })).toBe('delete');
    again.close();
  });

  it('takes a WAL file to a rollback journal once it can; one another connection holds in WAL opens as it is', () => {
    const path = join(dir, 'store.sqlite');
    openVersionedDatabase(options(path, 1)).close();
    // An older camroll has the file open in WAL: it cannot leave WAL now, and the open does not wait for it:
    // with an hour's busy timeout, an open that waited would never return within the test.
    const holder = new Database(path);
    holder.pragma('journal_mode = WAL');
    const held = openVersionedDatabase({ ...options(path, 1), journalMode: 'delete', busyTimeoutMs: 3_600_000 });
    expect(held.pragma('journal_mode', { simple: true })).toBe('wal');
    held.prepare('INSERT INTO t VALUES (?, ?)').run('a', '1');
    held.close();
    holder.close();
    const db = openVersionedDatabase({ ...options(path, 1), journalMode: 'delete' });
    expect(db.pragma('journal_mode', { simple: true })).toBe('delete');
    expect(db.prepare('SELECT v FROM t').pluck().all()).toEqual(['1']);
    db.close();
  });

  it('opens read only without creating or changing anything; a missing file is an error', () => {
    const path = join(dir, 'store.sqlite');
    const calls: number[] = [];
    expect(() => openVersionedDatabase({ ...options(path, 1, calls), readonly: true })).toThrow(
      expect.objectContaining({ code: 'cache_unreadable' }),
    );
    openVersionedDatabase(options(path, 1)).close();
    const db = openVersionedDatabase({ ...options(path, 1, calls), readonly: true });
    expect(() => db.prepare('INSERT INTO t VALUES (?, ?)').run('a', '1')).toThrow(/readonly/);
    db.close();
    expect(calls).toEqual([]);
  });
});

describe('an in-memory database', () => {
  it('touches no file, not even one named `:memory:` in the working folder', () => {
    const before = process.cwd();
    writeFileSync(join(dir, ':memory:'), "a file of the user's");
    chmodSync(join(dir, ':memory:'), 0o644); // whatever the umask
    process.chdir(dir);
    try {
      const db = openVersionedDatabase(options(':memory:', 1));
      db.prepare('INSERT INTO t VALUES (?, ?)').run('a', '1');
      db.close();
    } finally {
      process.chdir(before);
    }
    expect(statSync(join(dir, ':memory:')).mode & 0o777).toBe(0o644);
    expect(readFileSync(join(dir, ':memory:'), 'utf8')).toBe("a file of the user's");
  });
});

describe('one opener', () => {
  it('no module but src/util/sqlite.ts opens a SQLite file itself', () => {
    const root = join(import.meta.dirname, '..', '..', 'src');
    const openers = readdirSync(root, { recursive: true, encoding: 'utf8' }).filter(
      (file) => /\.c?ts$/.test(file) && /new Database\(/.test(readFileSync(join(root, file), 'utf8')),
    );
    expect(openers).toEqual([join('util', 'sqlite.ts')]);
  });
});
