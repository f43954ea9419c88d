import { randomBytes, randomUUID } from 'node:crypto';
import { createMatchIndex } from './match-index.js';
import { MIGRATIONS } from './migrations.js';
import { storeRetry, withRetry, type StoreRetryOptions } from './retry.js';
import type {
  IngestApplied,
  IngestWrite,
  MatchedMediaRow,
  NewUser,
  Scope,
  Store,
  UserEventRow,
  UserRow,
} from './types.js';
import { openVersionedDatabase } from '../../util/sqlite.js';

export type * from './types.js';

/** event_id, media_id, taken_at, media_type, thumbnail_url */
type MediaColumns = [number, string, string, 'photo' | 'video', string | null];

function toMatchedMedia(row: MediaColumns): MatchedMediaRow {
  const media: MatchedMediaRow = { media_id: row[1], taken_at: row[2], media_type: row[3] };
  if (row[4] !== null) media.thumbnail_url = row[4];
  return media;
}

/** Rows ordered by event: one map entry per event, no lookup per row. */
function groupByEvent(rows: Iterable<MediaColumns>): Map<number, MatchedMediaRow[]> {
  const byEvent = new Map<number, MatchedMediaRow[]>();
  let current = -1;
  let list: MatchedMediaRow[] = [];
  for (const row of rows) {
    if (row[0] !== current) {
      current = row[0];
      byEvent.set(current, (list = []));
    }
    list.push(toMatchedMedia(row));
  }
  return byEvent;
}

/** SQLITE_BUSY and SQLITE_LOCKED (with their extended codes): another connection holds the lock. */
export function isSqliteBusy(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED'));
}

export interface SqliteStoreOptions {
  /** Database file, or ':memory:'. */
  path: string;
  /** How long a locked database is retried (asynchronously) before a 503. */
  retry?: StoreRetryOptions;
  /** Matched asset ids kept in memory across users (default: createMatchIndex's). */
  maxIndexedMatches?: number;
}

/**
 * Opens (creating when needed) the service database. WAL with synchronous=NORMAL: every
 * committed transaction survives a killed process (the WAL is already in the OS cache);
 * only a power cut can drop the last commits, and never leaves a torn database.
 */
export function openStore(options: SqliteStoreOptions): Store {
  // Profiles (e-mails, names, phone numbers) and media metadata: owner only (the opener's 0600).
  // Start-up may wait 5 s for another process's migration; requests never wait inside SQLite.
  const db = openVersionedDatabase({
    path: options.path,
    what: 'the service database',
    migrations: MIGRATIONS,
    codes: { unreadable: 'database_unreadable', tooNew: 'database_too_new' },
  });
  db.pragma('foreign_keys = ON');
  // Checkpoint every 10,000 pages (~40 MB of WAL) instead of SQLite's 1,000: each checkpoint
  // syncs the database file, and at the default one in ~40 ingest batches paid for it (a
  // third of a batch's time). Durability is unchanged: commits live in the WAL either way.
  db.pragma('wal_autocheckpoint = 10000');
  // A lock held by another process (a backup, a second `serve`, an in-process client) must
  // not freeze the event loop: SQLite's busy handler sleeps the thread, so it may wait at
  // most 5 ms; the retry with backoff happens between event-loop turns (withRetry).
  db.pragma('busy_timeout = 5');

  const st = {
    getMeta: db.prepare<[string], { value: Buffer }>('SELECT value FROM meta WHERE key = ?'),
    putMeta: db.prepare<[string, Buffer]>('INSERT OR IGNORE INTO meta (key, value) VALUES (?, ?)'),
    userByEmail: db.prepare<[string, string, string], UserRow>(
      'SELECT * FROM users WHERE partner_id = ? AND environment = ? AND email = ?',
    ),
    phoneInUse: db.prepare<[string, string, string], { one: number }>(
      'SELECT 1 AS one FROM users WHERE partner_id = ? AND environment = ? AND phone_number = ?',
    ),
    insertUser: db.prepare(
      `INSERT INTO users (id, partner_id, environment, email, partner_user_id, first_name, last_name,
         phone_number, address_json, created_at)
       VALUES (@id, @partner_id, @environment, @email, @partner_user_id, @first_name, @last_name,
         @phone_number, @address_json, @created_at)`,
    ),
    userInScope: db.prepare<[string, string, string], UserRow>(
      'SELECT * FROM users WHERE id = ? AND partner_id = ? AND environment = ?',
    ),
    userState: db.prepare<[string], { has_synced: number; last_sync_at_ms: number | null }>(
      'SELECT has_synced, last_sync_at_ms FROM users WHERE id = ?',
    ),
    // Monotonic in SQL: a clock that steps back never moves last_sync_at backwards.
    touch: db.prepare<[number, number, string], { last_sync_at_ms: number }>(
      `UPDATE users SET last_sync_at_ms = MAX(COALESCE(last_sync_at_ms, 0), ?),
         has_synced = MAX(has_synced, ?) WHERE id = ? RETURNING last_sync_at_ms`,
    ),
    // The earlier events of a whole batch's ids in one statement (a JSON array of ids).
    previousEvents: db
      .prepare<[string, string], [string, number]>(
        'SELECT media_id, event_id FROM matches WHERE user_id = ? AND media_id IN (SELECT value FROM json_each(?))',
      )
      .raw(true),
    // Every match of a user, for the in-memory index (bounded by the caller's limit).
    userMatches: db
      .prepare<[string, number], [string, number]>('SELECT media_id, event_id FROM matches WHERE user_id = ? LIMIT ?')
      .raw(true),
    dataVersion: db.prepare<[], number>('PRAGMA data_version').pluck(),
    upsertMatch: db.prepare<[string, string, number, string, number, string, string | null]>(
      `INSERT INTO matches (user_id, media_id, event_id, taken_at, taken_at_ms, media_type, thumbnail_url)
       VALUES (?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (user_id, media_id) DO UPDATE SET event_id = excluded.event_id,
         taken_at = excluded.taken_at, taken_at_ms = excluded.taken_at_ms,
         media_type = excluded.media_type, thumbnail_url = excluded.thumbnail_url`,
    ),
    // Earlier matches of items that match nothing now: one delete for all of them.
    removeMatches: db.prepare<[string, string]>(
      'DELETE FROM matches WHERE user_id = ? AND media_id IN (SELECT value FROM json_each(?))',
    ),
    countEventsMedia: db.prepare<[string, string], { event_id: number; n: number }>(
      `SELECT event_id, COUNT(*) AS n FROM matches
       WHERE user_id = ? AND event_id IN (SELECT value FROM json_each(?)) GROUP BY event_id`,
    ),
    putUserEvent: db.prepare<[string, number, number, number]>(
      `INSERT INTO user_events (user_id, event_id, starts_at_ms, media_count) VALUES (?, ?, ?, ?)
       ON CONFLICT (user_id, event_id) DO UPDATE SET starts_at_ms = excluded.starts_at_ms,
         media_count = excluded.media_count`,
    ),
    setCount: db.prepare<[number, string, number]>(
      'UPDATE user_events SET media_count = ? WHERE user_id = ? AND event_id = ?',
    ),
    dropUserEvent: db.prepare<[string, number]>('DELETE FROM user_events WHERE user_id = ? AND event_id = ?'),
    // Raw rows (arrays): a page reads hundreds of media rows, and building one keyed object
    // per row only to copy it into the wire shape doubled the cost of the query.
    eventsMedia: db
      .prepare<[string, string], MediaColumns>(
        `SELECT event_id, media_id, taken_at, media_type, thumbnail_url FROM matches
         WHERE user_id = ? AND event_id IN (SELECT value FROM json_each(?))
         ORDER BY event_id, taken_at_ms, media_id`,
      )
      .raw(true),
    firstPage: db.prepare<[string], UserEventRow>(
      `SELECT event_id, starts_at_ms, media_count FROM user_events WHERE user_id = ?
       ORDER BY starts_at_ms DESC, event_id DESC`,
    ),
    // A row-value comparison lets the index seek straight to the cursor; the equivalent OR
    // form walked the user's newer events first, so late pages cost more than early ones.
    nextPage: db.prepare<[string, number, number], UserEventRow>(
      `SELECT event_id, starts_at_ms, media_count FROM user_events WHERE user_id = ?
         AND (starts_at_ms, event_id) < (?, ?)
       ORDER BY starts_at_ms DESC, event_id DESC`,
    ),
    eventIds: db.prepare<[string], number>('SELECT event_id FROM user_events WHERE user_id = ?').pluck(true),
  };

  // Resolved once here: every read and write of this store reuses it.
  const retry = storeRetry(options.retry);
  const read = <T>(fn: () => T): Promise<T> => withRetry(() => db.transaction(fn).deferred(), isSqliteBusy, retry);
  const write = <T>(fn: () => T): Promise<T> => withRetry(() => db.transaction(fn).immediate(), isSqliteBusy, retry);
  const eventsMedia = (userId: string, eventIds: readonly number[]): Map<number, MatchedMediaRow[]> =>
    eventIds.length === 0 ? new Map() : groupByEvent(st.eventsMedia.all(userId, JSON.stringify(eventIds)));

  /** Recomputes the per-event rows of the touched events from their matches, in three statements at most. */
  function refreshUserEvents(userId: string, touched: Map<number, number | null>): void {
    if (touched.size === 0) return;
    const counts = new Map<number, number>();
    for (const row of st.countEventsMedia.all(userId, JSON.stringify([...touched.keys()])))
      counts.set(row.event_id, row.n);
    for (const [eventId, startsAtMs] of touched) {
      const n = counts.get(eventId) ?? 0;
      if (n === 0) st.dropUserEvent.run(userId, eventId);
      // An event the catalog no longer lists keeps its stored start instant.
      else if (startsAtMs === null) st.setCount.run(n, userId, eventId);
      else st.putUserEvent.run(userId, eventId, startsAtMs, n);
    }
  }

  // Read and updated only inside the ingest transaction, which holds the write lock.
  const matchIndex = createMatchIndex({
    version: () => st.dataVersion.get() as number,
    load: (userId, limit) => st.userMatches.all(userId, limit),
    maxIds: options.maxIndexedMatches,
  });

  /** Where the batch's ids were matched before it (id -> event), from the index or one query. */
  const previousMatches = (userId: string, items: IngestWrite['items']): Map<string, number> =>
    matchIndex.of(userId) ?? new Map(st.previousEvents.all(userId, JSON.stringify(items.map((item) => item.mediaId))));

  const ingest = db.transaction((userId: string, batch: IngestWrite): IngestApplied => {
    const previous = previousMatches(userId, batch.items);
    const touched = new Map<number, number | null>();
    const touch = (eventId: number): void => {
      if (!touched.has(eventId)) touched.set(eventId, batch.startsOf(eventId));
    };
    const removed: string[] = [];
    for (const item of batch.items) {
      const before = previous.get(item.mediaId);
      if (before !== undefined) touch(before);
      const m = item.stored;
      if (m !== null) {
        st.upsertMatch.run(userId, m.media_id, m.event_id, m.taken_at, m.taken_at_ms, m.media_type, m.thumbnail_url);
        touch(m.event_id);
      } else if (before !== undefined) {
        // A re-sent item that no longer matches drops its earlier match: the latest metadata
        // for an asset id is the truth, and unmatched items are not retained.
        removed.push(item.mediaId);
      }
    }
    if (removed.length > 0) st.removeMatches.run(userId, JSON.stringify(removed));
    refreshUserEvents(userId, touched);
    const lastSyncAtMs = st.touch.get(batch.nowMs, 0, userId)?.last_sync_at_ms ?? batch.nowMs;
    const media = eventsMedia(userId, batch.readBack);
    // The same map when it came from the index: it now says what this transaction wrote.
    for (const item of batch.items) {
      if (item.stored !== null) previous.set(item.mediaId, item.stored.event_id);
    }
    for (const id of removed) previous.delete(id);
    return { lastSyncAtMs, media };
  });

  let closed = false;
  return {
    kind: 'sqlite',

    cursorSecret: () =>
      write(() => {
        st.putMeta.run('cursor_secret', randomBytes(32));
        return (st.getMeta.get('cursor_secret') as { value: Buffer }).value;
      }),

    createUser: (input: NewUser, scope: Scope, nowIso: string) =>
      write(() => {
        const existing = st.userByEmail.get(scope.partnerId, scope.environment, input.email);
        if (existing) return { user: existing, existing: true };
        const phone =
          input.phoneNumber && !st.phoneInUse.get(scope.partnerId, scope.environment, input.phoneNumber)
            ? input.phoneNumber
            : null;
        const row = {
          id: randomUUID(),
          partner_id: scope.partnerId,
          environment: scope.environment,
          email: input.email,
          partner_user_id: input.partnerUserId ?? null,
          first_name: input.firstName ?? null,
          last_name: input.lastName ?? null,
          phone_number: phone,
          address_json: input.address ? JSON.stringify(input.address) : null,
          created_at: nowIso,
        };
        st.insertUser.run(row);
        return { user: { ...row, has_synced: 0, last_sync_at_ms: null }, existing: false };
      }),

    // One statement reads one snapshot: no transaction needed around it.
    findUser: (userId, scope) =>
      withRetry(() => st.userInScope.get(userId, scope.partnerId, scope.environment) ?? null, isSqliteBusy, retry),

    applyIngest: (userId, batch) =>
      withRetry(
        () => {
          try {
            return ingest.immediate(userId, batch);
          } catch (error) {
            // The index may hold writes that were rolled back: read the user afresh next time.
            matchIndex.forget(userId);
            throw error;
          }
        },
        isSqliteBusy,
        retry,
      ),

    markSynced: (userId, nowMs) => write(() => st.touch.get(nowMs, 1, userId)?.last_sync_at_ms ?? nowMs),

    eventsPage: (userId, query) =>
      read(() => {
        const total = st.eventIds.all(userId).filter((id) => query.shown(id)).length;
        const source = query.after
          ? st.nextPage.iterate(userId, query.after.startsAtMs, query.after.eventId)
          : st.firstPage.iterate(userId);
        // Walk the index past events the catalog hides; stop at one beyond the page.
        const rows: UserEventRow[] = [];
        for (const row of source) {
          if (!query.shown(row.event_id)) continue;
          rows.push(row);
          if (rows.length > query.limit) break;
        }
        const hasMore = rows.length > query.limit;
        if (hasMore) rows.length = query.limit;
        const media = query.includeMedia
          ? eventsMedia(
              userId,
              rows.map((row) => row.event_id),
            )
          : null;
        return { total, rows, hasMore, media };
      }),

    history: (userId) =>
      read(() => {
        const state = st.userState.get(userId);
        return {
          eventIds: st.eventIds.all(userId),
          hasSynced: state?.has_synced === 1,
          lastSyncAtMs: state?.last_sync_at_ms ?? null,
        };
      }),

    async close() {
      if (closed) return;
      closed = true;
      db.close();
    },
  };
}
