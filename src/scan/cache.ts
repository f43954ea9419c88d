import * as fs from 'node:fs';
import path from 'node:path';
import type Database from 'better-sqlite3';
import type { FileProblem, ScannedMedia, SourceInfo } from './types.js';
import { isCorruption, openVersionedDatabase, type Migration } from '../util/sqlite.js';

/**
 * The cache's schema steps. A new layout is a step that drops the table and makes it again:
 * an older cache is rebuilt (it is only a cache); a newer one is left alone.
 */
const CACHE_MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    up: `CREATE TABLE files (
      path TEXT PRIMARY KEY,
      size INTEGER NOT NULL,
      mtime_ms REAL NOT NULL,
      ino INTEGER NOT NULL,
      sidecars TEXT NOT NULL,
      extractor INTEGER NOT NULL,
      media TEXT,
      source TEXT,
      error TEXT
    ) WITHOUT ROWID`,
  },
  {
    version: 2,
    // Keyed by folder then name, so one folder's rows are one range of the B-tree.
    up: `DROP TABLE IF EXISTS files;
      CREATE TABLE IF NOT EXISTS files (
        dir TEXT NOT NULL,
        name TEXT NOT NULL,
        size INTEGER NOT NULL,
        mtime_ms REAL NOT NULL,
        ino INTEGER NOT NULL,
        sidecars TEXT NOT NULL,
        extractor INTEGER NOT NULL,
        data TEXT NOT NULL,
        PRIMARY KEY (dir, name)
      ) WITHOUT ROWID`,
  },
];
/** Writes are grouped: one transaction per this many records (and at close). */
const WRITE_BATCH = 256;
/** Folders whose rows are held in memory at once (the walk lists a couple in parallel). */
const FOLDERS_HELD = 4;
/** A folder with more cached files than this is looked up file by file (memory stays flat). */
const MAX_FOLDER_ROWS = 5000;
/** What identifies a file's content without reading it. */
export interface CacheKey {
  absPath: string;
  size: number;
  mtimeMs: number;
  ino: number;
  /** Names, sizes and mtimes of the sidecars in its folder: editing one re-reads the folder. */
  sidecarFingerprint: string;
}

export interface CachedResult {
  media: ScannedMedia | null;
  source: SourceInfo | null;
  error: FileProblem | null;
}

export interface ScanCache {
  /** The stored result when every part of the key and the extractor version still match. */
  get(key: CacheKey): CachedResult | null;
  /** Stores a result (written in groups; `close` writes the rest). */
  put(key: CacheKey, result: CachedResult): void;
  /** Writes what is pending and closes the database. */
  close(): void;
  readonly file: string;
}

export interface ScanCacheOptions {
  /** Folder holding the cache database (created when missing). */
  dir: string;
  /** The extractor's version: results of another version are misses. */
  extractorVersion: number;
  /** How long to wait for another scan's write lock (default 5 s; tests shorten it). */
  busyTimeoutMs?: number;
}

/** name, size, mtime_ms, ino, sidecars, extractor, data (JSON of CachedResult). */
type Row = [string, number, number, number, string, number, string];

/**
 * Opens (or creates) the scan cache. A file that is damaged or not a database is replaced
 * once; any other failure (another scan holding the write lock past the busy timeout, a file
 * written by a newer camroll, a folder that cannot be written) is thrown, and the file kept.
 */
export function openScanCache(options: ScanCacheOptions): ScanCache {
  const file = path.join(options.dir, 'scan-cache.sqlite3');
  let db: Database.Database;
  try {
    db = openDatabase(file, options.busyTimeoutMs);
  } catch (error) {
    if (!isCorruption(error)) throw error;
    for (const suffix of ['', '-wal', '-shm']) fs.rmSync(file + suffix, { force: true });
    db = openDatabase(file, options.busyTimeoutMs);
  }
  const columns = 'name, size, mtime_ms, ino, sidecars, extractor, data';
  const selectOne = db
    .prepare<[string, string], Row>(`SELECT ${columns} FROM files WHERE dir = ? AND name = ?`)
    .raw(true);
  const selectFolder = db.prepare<[string], Row>(`SELECT ${columns} FROM files WHERE dir = ?`).raw(true);
  const countFolder = db.prepare<[string], number>('SELECT count(*) FROM files WHERE dir = ?').pluck(true);
  const upsert = db.prepare(
    `INSERT INTO files (dir, name, size, mtime_ms, ino, sidecars, extractor, data)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT(dir, name) DO UPDATE SET size = excluded.size, mtime_ms = excluded.mtime_ms, ino = excluded.ino,
       sidecars = excluded.sidecars, extractor = excluded.extractor, data = excluded.data`,
  );
  type Pending = [string, string, number, number, number, string, number, string];
  let pending: Pending[] = [];
  const writeAll = db.transaction((rows: Pending[]) => {
    for (const row of rows) upsert.run(row);
  });
  const flush = (): void => {
    if (pending.length === 0) return;
    const rows = pending;
    pending = [];
    writeAll.immediate(rows); // the write lock first: another scan may be writing too
  };
  let closed = false;
  // A first scan finds the table empty: every lookup would miss, so none is made.
  const empty = db.prepare('SELECT 1 FROM files LIMIT 1').get() === undefined;
  // One range read per folder instead of one B-tree descent per file: most of a re-scan's time.
  const folders = new Map<string, Map<string, Row> | null>();
  const folderRows = (dir: string): Map<string, Row> | null => {
    let rows = folders.get(dir);
    if (rows !== undefined) return rows;
    if (folders.size >= FOLDERS_HELD) folders.delete(folders.keys().next().value!);
    rows = countFolder.get(dir)! > MAX_FOLDER_ROWS ? null : new Map(selectFolder.all(dir).map((row) => [row[0], row]));
    folders.set(dir, rows);
    return rows;
  };

  return {
    file,
    get(key) {
      if (empty) return null;
      const dir = path.dirname(key.absPath);
      const name = path.basename(key.absPath);
      const held = folderRows(dir);
      const row = held ? held.get(name) : selectOne.get(dir, name);
      if (
        !row ||
        row[1] !== key.size ||
        row[2] !== key.mtimeMs ||
        row[3] !== key.ino ||
        row[4] !== key.sidecarFingerprint ||
        row[5] !== options.extractorVersion
      ) {
        return null;
      }
      return JSON.parse(row[6]) as CachedResult;
    },
    put(key, result) {
      if (closed) return;
      const data = JSON.stringify({ media: result.media, source: result.source, error: result.error });
      pending.push([
        path.dirname(key.absPath),
        path.basename(key.absPath),
        key.size,
        key.mtimeMs,
        key.ino,
        key.sidecarFingerprint,
        options.extractorVersion,
        data,
      ]);
      if (pending.length >= WRITE_BATCH) flush();
    },
    close() {
      if (closed) return;
      closed = true;
      try {
        flush();
      } finally {
        db.close();
      }
    },
  };
}

function openDatabase(file: string, busyTimeoutMs: number | undefined): Database.Database {
  return openVersionedDatabase({
    path: file,
    ...(busyTimeoutMs === undefined ? {} : { busyTimeoutMs }),
    what: 'the scan cache',
    migrations: CACHE_MIGRATIONS,
    codes: { unreadable: 'cache_unreadable', tooNew: 'cache_too_new' },
    probe: 'SELECT 1 FROM files LIMIT 1', // surfaces a damaged file now, not mid-scan
  });
}
