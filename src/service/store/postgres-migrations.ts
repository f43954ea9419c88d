import type { Pool } from 'pg';
import { latestVersion, migrationsAfter, schemaTooNew, type Migration } from '../../util/migrations.js';

/**
 * PostgreSQL schema steps, numbered like every SQLite list (`Migration`); `camroll_schema.version`
 * records the last one run. Append only. Asset ids and thumbnail URLs are BYTEA (their
 * UTF-8 bytes): PostgreSQL text refuses NUL, which a JSON string may carry, and byte order
 * is the order SQLite sorts text in, so both stores page media identically.
 */
export const PG_MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    up: `
  CREATE TABLE meta (
    key   TEXT PRIMARY KEY,
    value BYTEA NOT NULL
  );

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
    has_synced      SMALLINT NOT NULL DEFAULT 0,
    last_sync_at_ms BIGINT
  );
  CREATE UNIQUE INDEX users_by_email ON users (partner_id, environment, email);
  CREATE UNIQUE INDEX users_by_phone ON users (partner_id, environment, phone_number)
    WHERE phone_number IS NOT NULL;

  CREATE TABLE matches (
    user_id       TEXT NOT NULL,
    media_id      BYTEA NOT NULL,
    event_id      INTEGER NOT NULL,
    taken_at      TEXT NOT NULL,
    taken_at_ms   BIGINT NOT NULL,
    media_type    TEXT NOT NULL,
    thumbnail_url BYTEA,
    PRIMARY KEY (user_id, media_id)
  );
  CREATE INDEX matches_by_event ON matches (user_id, event_id, taken_at_ms, media_id)
    INCLUDE (taken_at, media_type, thumbnail_url);

  CREATE TABLE user_events (
    user_id      TEXT NOT NULL,
    event_id     INTEGER NOT NULL,
    starts_at_ms BIGINT NOT NULL,
    media_count  INTEGER NOT NULL,
    PRIMARY KEY (user_id, event_id)
  );
  CREATE INDEX user_events_newest ON user_events (user_id, starts_at_ms DESC, event_id DESC);
  `,
  },
];

/** Any constant works: one key for every camroll schema in a database ('camroll' in ASCII). */
const MIGRATION_LOCK = 0x63616d726f6c6c;

/**
 * Brings the schema to the latest version: the steps past the recorded one, in one
 * transaction with the new version number. Instances starting together queue on a session
 * advisory lock, so the steps run once.
 */
export async function migratePostgres(pool: Pool, schema: string | null): Promise<void> {
  const client = await pool.connect();
  try {
    await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
    try {
      if (schema !== null) await client.query(`CREATE SCHEMA IF NOT EXISTS ${quoteIdent(schema)}`);
      await client.query('CREATE TABLE IF NOT EXISTS camroll_schema (version INTEGER NOT NULL)');
      const row = (await client.query<{ version: number }>('SELECT version FROM camroll_schema')).rows[0];
      const current = row?.version ?? 0;
      const latest = latestVersion(PG_MIGRATIONS);
      if (current > latest) throw schemaTooNew('database_too_new', current, latest);
      if (current < latest) {
        await client.query('BEGIN');
        try {
          for (const step of migrationsAfter(PG_MIGRATIONS, current)) await client.query(step.up);
          await client.query('DELETE FROM camroll_schema');
          await client.query('INSERT INTO camroll_schema (version) VALUES ($1)', [latest]);
          await client.query('COMMIT');
        } catch (error) {
          await client.query('ROLLBACK');
          throw error;
        }
      }
    } finally {
      await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]);
    }
  } finally {
    client.release();
  }
}

/** A schema name as an SQL identifier. */
export function quoteIdent(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}
