import { randomBytes, randomUUID } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import type { CursorPosition } from '../cursor.js';
import { migrate } from './migrations.js';
import type { MatchedMediaRow, NewUser, Scope, Store, UserEventRow, UserRow } from './types.js';
import { restrictToOwner } from '../../util/private-file.js';

export type * from './types.js';

/** event_id, media_id, taken_at, media_type, thumbnail_url */
type MediaColumns = [number, string, string, 'photo' | 'video', string | null];

function toMatchedMedia(row: MediaColumns): MatchedMediaRow {
  const media: MatchedMediaRow = { media_id: row[1], taken_at: row[2], media_type: row[3] };
  if (row[4] !== null) media.thumbnail_url = row[4];
  return media;
}

/**
 * Opens (creating when needed) the service database. WAL with synchronous=NORMAL: every
 * committed transaction survives a killed process (the WAL is already in the OS cache);
 * only a power cut can drop the last commits, and never leaves a torn database.
 */
export function openStore(options: { path: string }): Store {
  if (options.path !== ':memory:') mkdirSync(dirname(options.path), { recursive: true });
  const db = new Database(options.path);
  db.pragma('journal_mode = WAL');
  // Profiles (e-mails, names, phone numbers) and media metadata: owner only.
  if (options.path !== ':memory:') restrictToOwner(options.path, `${options.path}-wal`, `${options.path}-shm`);
  db.pragma('synchronous = NORMAL');
  db.pragma('foreign_keys = ON');
  // A second process on the same file (serve next to an in-process client) waits, not fails.
  db.pragma('busy_timeout = 5000');
  // Checkpoint every 10,000 pages (~40 MB of WAL) instead of SQLite's 1,000: each checkpoint
  // syncs the database file, and at the default one in ~40 ingest batches paid for it (a
  // third of a batch's time). Durability is unchanged: commits live in the WAL either way.
  db.pragma('wal_autocheckpoint = 10000');
  migrate(db);

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
    touch: db.prepare<[number, number, string]>(
      `UPDATE users SET last_sync_at_ms = MAX(COALESCE(last_sync_at_ms, 0), ?),
         has_synced = MAX(has_synced, ?) WHERE id = ?`,
    ),
    matchEvent: db.prepare<[string, string], { event_id: number }>(
      'SELECT event_id FROM matches WHERE user_id = ? AND media_id = ?',
    ),
    upsertMatch: db.prepare(
      `INSERT INTO matches (user_id, media_id, event_id, taken_at, taken_at_ms, media_type, thumbnail_url)
       VALUES (@user_id, @media_id, @event_id, @taken_at, @taken_at_ms, @media_type, @thumbnail_url)
       ON CONFLICT (user_id, media_id) DO UPDATE SET event_id = excluded.event_id,
         taken_at = excluded.taken_at, taken_at_ms = excluded.taken_at_ms,
         media_type = excluded.media_type, thumbnail_url = excluded.thumbnail_url`,
    ),
    // One statement for a whole batch of ids (a JSON array): most items of a batch match
    // nothing, and one delete per item would dominate ingest.
    removeMatches: db.prepare<[string, string], { event_id: number }>(
      'DELETE FROM matches WHERE user_id = ? AND media_id IN (SELECT value FROM json_each(?)) RETURNING event_id',
    ),
    countEventMedia: db.prepare<[string, number], { n: number }>(
      'SELECT COUNT(*) AS n FROM matches WHERE user_id = ? AND event_id = ?',
    ),
    putUserEvent: db.prepare<[string, number, number, number]>(
      `INSERT INTO user_events (user_id, event_id, starts_at_ms, media_count) VALUES (?, ?, ?, ?)
       ON CONFLICT (user_id, event_id) DO UPDATE SET starts_at_ms = excluded.starts_at_ms,
         media_count = excluded.media_count`,
    ),
    dropUserEvent: db.prepare<[string, number]>('DELETE FROM user_events WHERE user_id = ? AND event_id = ?'),
    startsOf: db.prepare<[string, number], { starts_at_ms: number }>(
      'SELECT starts_at_ms FROM user_events WHERE user_id = ? AND event_id = ?',
    ),
    // Raw rows (arrays): a page reads hundreds of media rows, and building one keyed object
    // per row only to copy it into the wire shape doubled the cost of the query.
    eventsMedia: db
      .prepare<[string, string], MediaColumns>(
        `SELECT event_id, media_id, taken_at, media_type, thumbnail_url FROM matches
         WHERE user_id = ? AND event_id IN (SELECT value FROM json_each(?))
         ORDER BY event_id, taken_at_ms, media_id`,
      )
      .raw(true),
    firstPage: db.prepare<[string, number], UserEventRow>(
      `SELECT event_id, starts_at_ms, media_count FROM user_events WHERE user_id = ?
       ORDER BY starts_at_ms DESC, event_id DESC LIMIT ?`,
    ),
    // A row-value comparison lets the index seek straight to the cursor; the equivalent OR
    // form walked the user's newer events first, so late pages cost more than early ones.
    nextPage: db.prepare<[string, number, number, number], UserEventRow>(
      `SELECT event_id, starts_at_ms, media_count FROM user_events WHERE user_id = ?
         AND (starts_at_ms, event_id) < (?, ?)
       ORDER BY starts_at_ms DESC, event_id DESC LIMIT ?`,
    ),
    countEvents: db.prepare<[string], { n: number }>('SELECT COUNT(*) AS n FROM user_events WHERE user_id = ?'),
    eventIds: db.prepare<[string], { event_id: number }>('SELECT event_id FROM user_events WHERE user_id = ?'),
  };

  let closed = false;
  const store: Store = {
    read: (fn) => db.transaction(fn).deferred(),
    write: (fn) => db.transaction(fn).immediate(),

    cursorSecret() {
      st.putMeta.run('cursor_secret', randomBytes(32));
      return (st.getMeta.get('cursor_secret') as { value: Buffer }).value;
    },

    createUser(input: NewUser, scope: Scope, nowIso: string) {
      return db
        .transaction(() => {
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
        })
        .immediate();
    },

    findUser: (userId, scope) => st.userInScope.get(userId, scope.partnerId, scope.environment) ?? null,
    userState(userId) {
      const row = st.userState.get(userId);
      return { hasSynced: row?.has_synced === 1, lastSyncAtMs: row?.last_sync_at_ms ?? null };
    },
    touch(userId, nowMs, markSynced) {
      st.touch.run(nowMs, markSynced ? 1 : 0, userId);
      return st.userState.get(userId)?.last_sync_at_ms ?? nowMs;
    },
    matchedEventOf: (userId, mediaId) => st.matchEvent.get(userId, mediaId)?.event_id ?? null,
    upsertMatch(userId, media) {
      st.upsertMatch.run({ user_id: userId, ...media });
    },
    removeMatches(userId, mediaIds) {
      if (mediaIds.length === 0) return [];
      return st.removeMatches.all(userId, JSON.stringify(mediaIds)).map((row) => row.event_id);
    },
    refreshUserEvent(userId, eventId, startsAtMs) {
      const n = st.countEventMedia.get(userId, eventId)?.n ?? 0;
      if (n === 0) {
        st.dropUserEvent.run(userId, eventId);
        return;
      }
      const starts = startsAtMs ?? st.startsOf.get(userId, eventId)?.starts_at_ms;
      if (starts === undefined) return;
      st.putUserEvent.run(userId, eventId, starts, n);
    },
    eventsMedia(userId, eventIds) {
      const byEvent = new Map<number, MatchedMediaRow[]>();
      if (eventIds.length === 0) return byEvent;
      let current = -1;
      let list: MatchedMediaRow[] = [];
      // Rows come ordered by event: one map entry per event, no lookup per row.
      for (const row of st.eventsMedia.all(userId, JSON.stringify(eventIds))) {
        if (row[0] !== current) {
          current = row[0];
          byEvent.set(current, (list = []));
        }
        list.push(toMatchedMedia(row));
      }
      return byEvent;
    },
    pageEvents(userId, after: CursorPosition | null, limit) {
      return after ? st.nextPage.all(userId, after.startsAtMs, after.eventId, limit) : st.firstPage.all(userId, limit);
    },
    countEvents: (userId) => st.countEvents.get(userId)?.n ?? 0,
    eventIds: (userId) => st.eventIds.all(userId).map((row) => row.event_id),

    close() {
      if (closed) return;
      closed = true;
      db.close();
    },
  };
  return store;
}
