import { LocalStateError, StartupError } from '../../errors.js';
import type { StoreRetryOptions } from './retry.js';
import type { Store } from './types.js';

/** Where the service keeps its data: a SQLite file (one process) or a PostgreSQL database (a team). */
export type StoreTarget = { kind: 'sqlite'; path: string } | { kind: 'postgres'; url: string; schema?: string };

/** True for a postgres:// or postgresql:// connection string. */
export function isPostgresUrl(value: string): boolean {
  return /^postgres(ql)?:\/\//i.test(value);
}

/** host:port/database of a connection string, never its user or password (for messages). */
export function describeDatabaseUrl(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.host}${parsed.pathname}`;
  } catch {
    return '(unparsable connection string)';
  }
}

/**
 * Splits camroll's own `schema` parameter off a connection string: `postgres://…/db?schema=NAME`
 * keeps the tables in that schema (created when missing), so several camroll databases can
 * share one PostgreSQL database.
 */
export function postgresTarget(url: string): StoreTarget {
  try {
    const parsed = new URL(url);
    const schema = parsed.searchParams.get('schema');
    if (schema === null || schema === '') return { kind: 'postgres', url };
    parsed.searchParams.delete('schema');
    return { kind: 'postgres', url: parsed.toString(), schema };
  } catch {
    return { kind: 'postgres', url };
  }
}

/** Opens the store for a target; each driver is loaded only when used. */
export async function openStoreAt(target: StoreTarget, retry?: StoreRetryOptions): Promise<Store> {
  if (target.kind === 'sqlite') {
    const { openStore } = await import('./store.js');
    return openStore({ path: target.path, ...(retry ? { retry } : {}) });
  }
  const { openPostgresStore } = await import('./postgres.js');
  try {
    return await openPostgresStore({
      url: target.url,
      ...(target.schema ? { schema: target.schema } : {}),
      ...(retry ? { retry } : {}),
    });
  } catch (error) {
    const where = `the PostgreSQL database at ${describeDatabaseUrl(target.url)}`;
    // A schema of a newer camroll is not an outage: upgrading is the fix, as for a SQLite file.
    if (error instanceof LocalStateError) {
      throw new LocalStateError(error.code, `${where} ${error.message}`, { cause: error });
    }
    const reason = error instanceof Error ? error.message : String(error);
    throw new StartupError('database_unavailable', `cannot open ${where}: ${reason}`, {
      cause: error,
    });
  }
}
