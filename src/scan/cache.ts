import * as fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import type { FileProblem, ScannedMedia, SourceInfo } from './types.js';

/** Bump when the table changes: an older cache is dropped and rebuilt (it is only a cache). */
const SCHEMA_VERSION = 1;
/** Writes are grouped: one transaction per this many records (and at close). */
const WRITE_BATCH = 256;

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
}

interface Row {
  size: number;
  mtime_ms: number;
  ino: number;
  sidecars: string;
  extractor: number;
  media: string | null;
  source: string | null;
  error: string | null;
}

/** Opens (or creates) the scan cache. A damaged database file is replaced once. */
export function openScanCache(options: ScanCacheOptions): ScanCache {
  fs.mkdirSync(options.dir, { recursive: true });
  const file = path.join(options.dir, 'scan-cache.sqlite3');
  let db: Database.Database;
  try {
    db = openDatabase(file);
  } catch {
    for (const suffix of ['', '-wal', '-shm']) fs.rmSync(file + suffix, { force: true });
    db = openDatabase(file);
  }
  const select = db.prepare<[string], Row>(
    'SELECT size, mtime_ms, ino, sidecars, extractor, media, source, error FROM files WHERE path = ?',
  );
  const upsert = db.prepare(
    `INSERT INTO files (path, size, mtime_ms, ino, sidecars, extractor, media, source, error)
     VALUES (@path, @size, @mtime_ms, @ino, @sidecars, @extractor, @media, @source, @error)
     ON CONFLICT(path) DO UPDATE SET size = excluded.size, mtime_ms = excluded.mtime_ms, ino = excluded.ino,
       sidecars = excluded.sidecars, extractor = excluded.extractor, media = excluded.media,
       source = excluded.source, error = excluded.error`,
  );
  type Pending = Record<string, string | number | null>;
  let pending: Pending[] = [];
  const writeAll = db.transaction((rows: Pending[]) => {
    for (const row of rows) upsert.run(row);
  });
  const flush = (): void => {
    if (pending.length === 0) return;
    const rows = pending;
    pending = [];
    writeAll(rows);
  };
  let closed = false;

  return {
    file,
    get(key) {
      const row = select.get(key.absPath);
      if (
        !row ||
        row.size !== key.size ||
        row.mtime_ms !== key.mtimeMs ||
        row.ino !== key.ino ||
        row.sidecars !== key.sidecarFingerprint ||
        row.extractor !== options.extractorVersion
      ) {
        return null;
      }
      return {
        media: row.media === null ? null : (JSON.parse(row.media) as ScannedMedia),
        source: row.source === null ? null : (JSON.parse(row.source) as SourceInfo),
        error: row.error === null ? null : (JSON.parse(row.error) as FileProblem),
      };
    },
    put(key, result) {
      if (closed) return;
      pending.push({
        path: key.absPath,
        size: key.size,
        mtime_ms: key.mtimeMs,
        ino: key.ino,
        sidecars: key.sidecarFingerprint,
        extractor: options.extractorVersion,
        media: result.media === null ? null : JSON.stringify(result.media),
        source: result.source === null ? null : JSON.stringify(result.source),
        error: result.error === null ? null : JSON.stringify(result.error),
      });
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

function openDatabase(file: string): Database.Database {
  const db = new Database(file, { timeout: 5000 }); // 5 s: another scan may be writing
  try {
    db.pragma('journal_mode = WAL');
    // A crash may lose the last group of writes, never corrupt the file: fine for a cache.
    db.pragma('synchronous = NORMAL');
    const version = db.pragma('user_version', { simple: true }) as number;
    if (version !== SCHEMA_VERSION) {
      db.exec('DROP TABLE IF EXISTS files');
      db.exec(`CREATE TABLE files (
        path TEXT PRIMARY KEY,
        size INTEGER NOT NULL,
        mtime_ms REAL NOT NULL,
        ino INTEGER NOT NULL,
        sidecars TEXT NOT NULL,
        extractor INTEGER NOT NULL,
        media TEXT,
        source TEXT,
        error TEXT
      ) WITHOUT ROWID`);
      db.pragma(`user_version = ${SCHEMA_VERSION}`);
    }
    db.prepare('SELECT 1 FROM files LIMIT 1').get(); // surfaces a damaged file now, not mid-scan
    return db;
  } catch (error) {
    db.close();
    throw error;
  }
}
