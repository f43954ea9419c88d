import { randomBytes, randomUUID } from 'node:crypto';
import pg from 'pg';
import { migratePostgres, quoteIdent } from './postgres-migrations.js';
import { storeRetry, withRetry, type StoreRetryOptions } from './retry.js';
import type { MatchedMediaRow, NewUser, Scope, Store, StoredMedia, UserEventRow, UserRow } from './types.js';

export interface PostgresStoreOptions {
  /** postgres://user:password@host:port/database (the pg connection string syntax). */
  url: string;
  /** A schema to keep the tables in (created when missing); default the connection's search_path. */
  schema?: string;
  /** Connections per instance (default 10). */
  poolSize?: number;
  /** How long a lost connection or a conflict is retried before a 503. */
  retry?: StoreRetryOptions;
}

// int8 (BIGINT, COUNT) as numbers: millisecond instants and counts stay far below 2^53.
const INT8_OID = 20;
const types = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === INT8_OID
      ? (value: string) => Number(value)
      : pg.types.getTypeParser(oid, format as 'text')) as typeof pg.types.getTypeParser,
};

/** Errors worth another attempt: the connection went away, the server is starting or full, a conflict. */
export function isPgTransient(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string') {
    if (['40001', '40P01', '55P03', '53300', '57P01', '57P02', '57P03'].includes(code) || code.startsWith('08'))
      return true;
    if (['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE'].includes(code)) return true;
  }
  const message = error instanceof Error ? error.message : '';
  return /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error/.test(
    message,
  );
}

/** Free text PostgreSQL cannot hold (NUL): profile members are never read back, so NUL becomes U+FFFD. */
const pgText = (value: string | null | undefined): string | null =>
  value == null ? null : value.replaceAll('\u0000', '\uFFFD');
const bytes = (value: string): Buffer => Buffer.from(value, 'utf8');

type MediaColumns = [number, Buffer, string, 'photo' | 'video', Buffer | null];

function groupByEvent(rows: readonly MediaColumns[]): Map<number, MatchedMediaRow[]> {
  const byEvent = new Map<number, MatchedMediaRow[]>();
  for (const [eventId, mediaId, takenAt, mediaType, thumbnail] of rows) {
    let list = byEvent.get(eventId);
    if (list === undefined) byEvent.set(eventId, (list = []));
    const media: MatchedMediaRow = { media_id: mediaId.toString('utf8'), taken_at: takenAt, media_type: mediaType };
    if (thumbnail !== null) media.thumbnail_url = thumbnail.toString('utf8');
    list.push(media);
  }
  return byEvent;
}

const SQL = {
  touch: `UPDATE users SET last_sync_at_ms = GREATEST(COALESCE(last_sync_at_ms, 0), $2), has_synced = GREATEST(has_synced, $3)
          WHERE id = $1 RETURNING last_sync_at_ms`,
  // Upsert the matched ids and delete the unmatched ones in one statement. Every part reads
  // the snapshot from before the statement, so `previous` sees the events the ids were on.
  write: `WITH previous AS (SELECT event_id FROM matches WHERE user_id = $1 AND media_id = ANY($2::bytea[])),
            upserted AS (
              INSERT INTO matches (user_id, media_id, event_id, taken_at, taken_at_ms, media_type, thumbnail_url)
              SELECT $1, * FROM unnest($2::bytea[], $3::int[], $4::text[], $5::int8[], $6::text[], $7::bytea[])
              ON CONFLICT (user_id, media_id) DO UPDATE SET event_id = excluded.event_id, taken_at = excluded.taken_at,
                taken_at_ms = excluded.taken_at_ms, media_type = excluded.media_type, thumbnail_url = excluded.thumbnail_url
              RETURNING 1),
            removed AS (DELETE FROM matches WHERE user_id = $1 AND media_id = ANY($8::bytea[]) RETURNING event_id)
          SELECT event_id FROM previous UNION SELECT event_id FROM removed`,
  // Recount the touched events ($2, with their catalog start or null to keep the stored one)
  // from the matches the previous statement wrote, put/update/drop their rows, and read the
  // answer's media ($4), all in one round trip. The three writes touch disjoint events.
  refresh: `WITH t AS (SELECT * FROM unnest($2::int[], $3::int8[]) AS t(event_id, starts)),
              c AS (SELECT t.event_id, t.starts,
                      (SELECT COUNT(*) FROM matches m WHERE m.user_id = $1 AND m.event_id = t.event_id) AS n FROM t),
              put AS (INSERT INTO user_events (user_id, event_id, starts_at_ms, media_count)
                      SELECT $1, event_id, starts, n FROM c WHERE n > 0 AND starts IS NOT NULL
                      ON CONFLICT (user_id, event_id) DO UPDATE SET starts_at_ms = excluded.starts_at_ms, media_count = excluded.media_count),
              kept AS (UPDATE user_events u SET media_count = c.n FROM c
                       WHERE u.user_id = $1 AND u.event_id = c.event_id AND c.n > 0 AND c.starts IS NULL),
              dropped AS (DELETE FROM user_events WHERE user_id = $1 AND event_id IN (SELECT event_id FROM c WHERE n = 0))
            SELECT event_id, media_id, taken_at, media_type, thumbnail_url FROM matches
            WHERE user_id = $1 AND event_id = ANY($4::int[]) ORDER BY event_id, taken_at_ms, media_id`,
  media: `SELECT event_id, media_id, taken_at, media_type, thumbnail_url FROM matches
          WHERE user_id = $1 AND event_id = ANY($2::int[]) ORDER BY event_id, taken_at_ms, media_id`,
  eventIds: 'SELECT event_id FROM user_events WHERE user_id = $1',
  // Row values let the index seek to the cursor; the first page starts above every real key.
  page: `SELECT event_id, starts_at_ms, media_count FROM user_events WHERE user_id = $1 AND (starts_at_ms, event_id) < ($2, $3)
         ORDER BY starts_at_ms DESC, event_id DESC LIMIT $4`,
  userInScope: 'SELECT * FROM users WHERE id = $1 AND partner_id = $2 AND environment = $3',
  userByEmail: 'SELECT * FROM users WHERE partner_id = $1 AND environment = $2 AND email = $3',
  userState: 'SELECT has_synced, last_sync_at_ms FROM users WHERE id = $1',
  // DO NOTHING without a target covers both unique indexes: the e-mail (idempotent create)
  // and the phone number (a number in use is dropped, then the insert is tried again).
  insertUser: `INSERT INTO users (id, partner_id, environment, email, partner_user_id, first_name, last_name, phone_number, address_json, created_at)
               VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) ON CONFLICT DO NOTHING RETURNING *`,
  putSecret: 'INSERT INTO meta (key, value) VALUES ($1, $2) ON CONFLICT (key) DO NOTHING',
  getSecret: 'SELECT value FROM meta WHERE key = $1',
} as const;

/** Named statements: each connection prepares them once and reuses the plan. */
const q = (name: keyof typeof SQL, values: unknown[]): pg.QueryConfig => ({ name, text: SQL[name], values });
/** The same, rows as arrays: a page reads hundreds of media rows. */
const qa = (name: keyof typeof SQL, values: unknown[]): pg.QueryArrayConfig => ({
  name,
  text: SQL[name],
  values,
  rowMode: 'array',
});

const TOP: [number, number] = [Number.MAX_SAFE_INTEGER, 2 ** 31 - 1];

/**
 * The store on PostgreSQL, for several `serve` instances on one database. Every guarantee
 * holds in SQL across instances: matches upsert on (user, asset id); an ingest first locks
 * its user's row (the monotonic last_sync_at update), so batches of one user apply one
 * after the other whatever instance takes them, while different users run in parallel.
 */
export async function openPostgresStore(options: PostgresStoreOptions): Promise<Store> {
  const schema = options.schema ?? null;
  const pool = new pg.Pool({
    connectionString: options.url,
    max: options.poolSize ?? 10,
    connectionTimeoutMillis: 2000, // 2 s, then the request is retried or answered 503
    types,
    ...(schema === null ? {} : { options: `-c search_path=${quoteIdent(schema)}` }),
  });
  // An idle connection dropped by the server must not crash the process; the next checkout reconnects.
  pool.on('error', () => undefined);
  try {
    await migratePostgres(pool, schema);
  } catch (error) {
    await pool.end().catch(() => undefined);
    throw error;
  }
  // Resolved once here: every read and write of this store reuses it.
  const retry = storeRetry(options.retry);

  async function transaction<T>(begin: string, fn: (c: pg.PoolClient) => Promise<T>): Promise<T> {
    return withRetry(
      async () => {
        const client = await pool.connect();
        let broken: Error | undefined;
        try {
          await client.query(begin);
          const result = await fn(client);
          await client.query('COMMIT');
          return result;
        } catch (error) {
          await client.query('ROLLBACK').catch((rollback: Error) => (broken = rollback));
          throw error;
        } finally {
          client.release(broken);
        }
      },
      isPgTransient,
      retry,
    );
  }
  const write = <T>(fn: (c: pg.PoolClient) => Promise<T>): Promise<T> => transaction('BEGIN', fn);
  // One snapshot for every statement of a read.
  const read = <T>(fn: (c: pg.PoolClient) => Promise<T>): Promise<T> =>
    transaction('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY', fn);

  async function mediaOf(
    c: pg.PoolClient,
    userId: string,
    eventIds: readonly number[],
  ): Promise<Map<number, MatchedMediaRow[]>> {
    if (eventIds.length === 0) return new Map();
    return groupByEvent((await c.query<MediaColumns>(qa('media', [userId, eventIds]))).rows);
  }

  async function insertUser(
    c: pg.PoolClient,
    input: NewUser,
    scope: Scope,
    nowIso: string,
    phone: string | null,
  ): Promise<UserRow | null> {
    const values = [
      randomUUID(),
      scope.partnerId,
      scope.environment,
      input.email,
      pgText(input.partnerUserId),
      pgText(input.firstName),
      pgText(input.lastName),
      phone,
      input.address ? pgText(JSON.stringify(input.address)) : null,
      nowIso,
    ];
    return (await c.query<UserRow>(q('insertUser', values))).rows[0] ?? null;
  }

  let closed: Promise<void> | null = null;
  return {
    kind: 'postgres',

    cursorSecret: () =>
      write(async (c) => {
        await c.query(q('putSecret', ['cursor_secret', randomBytes(32)]));
        return (await c.query<{ value: Buffer }>(q('getSecret', ['cursor_secret']))).rows[0]!.value;
      }),

    createUser: (input, scope, nowIso) =>
      write(async (c) => {
        const byEmail = async (): Promise<UserRow | undefined> =>
          (await c.query<UserRow>(q('userByEmail', [scope.partnerId, scope.environment, input.email]))).rows[0];
        const phone = pgText(input.phoneNumber);
        const created = await insertUser(c, input, scope, nowIso, phone);
        if (created) return { user: created, existing: false };
        // The insert met a committed row: the same e-mail (idempotent) or only the phone number.
        const existing = await byEmail();
        if (existing) return { user: existing, existing: true };
        const withoutPhone = phone === null ? null : await insertUser(c, input, scope, nowIso, null);
        if (withoutPhone) return { user: withoutPhone, existing: false };
        const raced = await byEmail();
        if (!raced) throw new Error('user insert conflicted with no visible row');
        return { user: raced, existing: true };
      }),

    findUser: async (userId, scope) =>
      withRetry(
        async () =>
          (await pool.query<UserRow>(q('userInScope', [userId, scope.partnerId, scope.environment]))).rows[0] ?? null,
        isPgTransient,
        retry,
      ),

    applyIngest: (userId, batch) =>
      write(async (c) => {
        // First: the monotonic last_sync_at update, which also locks the user's row until commit.
        const lastSyncAtMs =
          (await c.query<{ last_sync_at_ms: number }>(q('touch', [userId, batch.nowMs, 0]))).rows[0]?.last_sync_at_ms ??
          batch.nowMs;
        const matched: StoredMedia[] = [];
        const unmatched: Buffer[] = [];
        for (const item of batch.items) {
          if (item.stored) matched.push(item.stored);
          else unmatched.push(bytes(item.mediaId));
        }
        const touched = new Set<number>(matched.map((m) => m.event_id));
        const written = await c.query<{ event_id: number }>(
          q('write', [
            userId,
            matched.map((m) => bytes(m.media_id)),
            matched.map((m) => m.event_id),
            matched.map((m) => m.taken_at),
            matched.map((m) => m.taken_at_ms),
            matched.map((m) => m.media_type),
            matched.map((m) => (m.thumbnail_url === null ? null : bytes(m.thumbnail_url))),
            unmatched,
          ]),
        );
        // A re-sent item that moved or no longer matches leaves its earlier event to recount.
        for (const row of written.rows) touched.add(row.event_id);
        const events = [...touched];
        const media = await c.query<MediaColumns>(
          qa('refresh', [userId, events, events.map((id) => batch.startsOf(id)), batch.readBack]),
        );
        return { lastSyncAtMs, media: groupByEvent(media.rows) };
      }),

    markSynced: (userId, nowMs) =>
      write(
        async (c) =>
          (await c.query<{ last_sync_at_ms: number }>(q('touch', [userId, nowMs, 1]))).rows[0]?.last_sync_at_ms ??
          nowMs,
      ),

    eventsPage: (userId, query) =>
      read(async (c) => {
        const ids = (await c.query<{ event_id: number }>(q('eventIds', [userId]))).rows;
        const total = ids.filter((row) => query.shown(row.event_id)).length;
        // Pages of limit+1 keys, walking on past events the catalog hides.
        const rows: UserEventRow[] = [];
        let [startsAtMs, eventId] = query.after ? [query.after.startsAtMs, query.after.eventId] : TOP;
        for (;;) {
          const chunk = (await c.query<UserEventRow>(q('page', [userId, startsAtMs, eventId, query.limit + 1]))).rows;
          for (const row of chunk) if (query.shown(row.event_id) && rows.length <= query.limit) rows.push(row);
          const last = chunk[chunk.length - 1];
          if (rows.length > query.limit || chunk.length <= query.limit || !last) break;
          [startsAtMs, eventId] = [last.starts_at_ms, last.event_id];
        }
        const hasMore = rows.length > query.limit;
        if (hasMore) rows.length = query.limit;
        const media = query.includeMedia
          ? await mediaOf(
              c,
              userId,
              rows.map((row) => row.event_id),
            )
          : null;
        return { total, rows, hasMore, media };
      }),

    history: (userId) =>
      read(async (c) => {
        const state = (await c.query<{ has_synced: number; last_sync_at_ms: number | null }>(q('userState', [userId])))
          .rows[0];
        const eventIds = (await c.query<{ event_id: number }>(q('eventIds', [userId]))).rows.map((row) => row.event_id);
        return { eventIds, hasSynced: state?.has_synced === 1, lastSyncAtMs: state?.last_sync_at_ms ?? null };
      }),

    close() {
      closed ??= pool.end();
      return closed;
    },
  };
}
