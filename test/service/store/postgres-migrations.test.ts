import { afterAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { openStoreAt, postgresTarget } from '../../../src/service/store/open.js';
import { openPostgresStore } from '../../../src/service/store/postgres.js';
import { testSchema } from '../helpers.js';

const url = process.env.CAMROLL_TEST_DATABASE_URL;

// The schema as the build before numbered migrations made it (its PG_MIGRATIONS[0]), version 1.
const PG_V1 = `
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
`;

describe.skipIf(!url)(
  url
    ? 'PostgreSQL schema versions'
    : 'PostgreSQL schema versions (skipped: set CAMROLL_TEST_DATABASE_URL, e.g. from .ci/postgres.sh)',
  () => {
    const client = new pg.Client({ connectionString: url });
    const ready = url ? client.connect() : Promise.resolve();
    afterAll(async () => {
      if (url) await client.end();
    });

    /** A schema made by the previous build at `version`, with one user. */
    async function previous(version: number): Promise<string> {
      await ready;
      const schema = testSchema();
      await client.query(`CREATE SCHEMA "${schema}"`);
      await client.query(`SET search_path TO "${schema}"`);
      await client.query(PG_V1);
      await client.query('CREATE TABLE camroll_schema (version INTEGER NOT NULL)');
      await client.query('INSERT INTO camroll_schema (version) VALUES ($1)', [version]);
      await client.query(
        `INSERT INTO users (id, partner_id, environment, email, created_at, has_synced, last_sync_at_ms)
         VALUES ('u-1', 'acme', 'sandbox', 'old@example.com', '2025-01-01T00:00:00.000Z', 1, 1735689600000)`,
      );
      await client.query('SET search_path TO DEFAULT');
      return schema;
    }

    it('a database of the previous build (version 1) opens unchanged: its users are read, no step runs again', async () => {
      const schema = await previous(1);
      const store = await openPostgresStore({ url: url!, schema, poolSize: 2 });
      try {
        expect(await store.findUser('u-1', { partnerId: 'acme', environment: 'sandbox' })).toMatchObject({
          email: 'old@example.com',
        });
        expect(await store.history('u-1')).toEqual({ eventIds: [], hasSynced: true, lastSyncAtMs: 1735689600000 });
      } finally {
        await store.close();
      }
      expect((await client.query(`SELECT version FROM "${schema}".camroll_schema`)).rows).toEqual([{ version: 1 }]);
    });

    it('a database of a newer camroll is refused and left as it was', async () => {
      const schema = await previous(99);
      await expect(openPostgresStore({ url: url!, schema, poolSize: 2 })).rejects.toThrow('newer camroll (schema 99');
      // As serve opens it: database_too_new and the fix, as for a SQLite file, not an outage.
      const target = postgresTarget(`${url!}${url!.includes('?') ? '&' : '?'}schema=${schema}`);
      const tooNew = /^the PostgreSQL database at .* was written by a newer camroll .*; upgrade camroll$/;
      await expect(openStoreAt(target)).rejects.toMatchObject({
        code: 'database_too_new',
        message: expect.stringMatching(tooNew),
      });
      expect((await client.query(`SELECT version FROM "${schema}".camroll_schema`)).rows).toEqual([{ version: 99 }]);
    });

    it('a new database gets every step in one go', async () => {
      const schema = testSchema();
      const store = await openPostgresStore({ url: url!, schema, poolSize: 2 });
      await store.close();
      await ready;
      expect((await client.query(`SELECT version FROM "${schema}".camroll_schema`)).rows).toEqual([{ version: 1 }]);
      const tables = await client.query<{ table_name: string }>(
        'SELECT table_name FROM information_schema.tables WHERE table_schema = $1 ORDER BY table_name',
        [schema],
      );
      expect(tables.rows.map((row) => row.table_name)).toEqual([
        'camroll_schema',
        'matches',
        'meta',
        'user_events',
        'users',
      ]);
    });
  },
);
