import type { Migration } from '../../util/migrations.js';

/**
 * The service database's schema steps, applied by `openVersionedDatabase`; `PRAGMA
 * user_version` records the last one run. Append only: a released migration is never edited.
 */
export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    up: `
  CREATE TABLE meta (
    key   TEXT PRIMARY KEY,
    value BLOB NOT NULL
  ) WITHOUT ROWID;

  CREATE TABLE users (
    id              TEXT PRIMARY KEY,
    partner_id      TEXT NOT NULL,
    environment     TEXT NOT NULL,
    email           TEXT NOT NULL,
    partner_user_id TEXT,
    first_name      TEXT,
    last_name       TEXT,
    phone_number    TEXT,
    address_json    TEXT,
    created_at      TEXT NOT NULL,
    has_synced      INTEGER NOT NULL DEFAULT 0,
    last_sync_at_ms INTEGER
  ) WITHOUT ROWID;
  CREATE UNIQUE INDEX users_by_email ON users (partner_id, environment, email);
  CREATE UNIQUE INDEX users_by_phone ON users (partner_id, environment, phone_number)
    WHERE phone_number IS NOT NULL;

  -- One row per matched item; unmatched items are never stored.
  CREATE TABLE matches (
    user_id       TEXT NOT NULL,
    media_id      TEXT NOT NULL,
    event_id      INTEGER NOT NULL,
    taken_at      TEXT NOT NULL,
    taken_at_ms   INTEGER NOT NULL,
    media_type    TEXT NOT NULL,
    thumbnail_url TEXT,
    PRIMARY KEY (user_id, media_id)
  ) WITHOUT ROWID;
  -- Covering: an event's media list is read from the index alone, already in order.
  CREATE INDEX matches_by_event ON matches (user_id, event_id, taken_at_ms, media_id, taken_at, media_type, thumbnail_url);

  -- Derived from matches inside the same transaction: the user's events with their media
  -- count and start instant, so paging and totals never scan media.
  CREATE TABLE user_events (
    user_id      TEXT NOT NULL,
    event_id     INTEGER NOT NULL,
    starts_at_ms INTEGER NOT NULL,
    media_count  INTEGER NOT NULL,
    PRIMARY KEY (user_id, event_id)
  ) WITHOUT ROWID;
  CREATE INDEX user_events_newest ON user_events (user_id, starts_at_ms DESC, event_id DESC);
  `,
  },
];
