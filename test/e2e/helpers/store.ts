import { randomUUID } from 'node:crypto';

/** The store the black-box tests give `serve`: SQLite by default, PostgreSQL in the postgres test project. */
export const E2E_STORE: 'sqlite' | 'postgres' = process.env.CAMROLL_TEST_STORE === 'postgres' ? 'postgres' : 'sqlite';

/** A connection string for a fresh schema on the test PostgreSQL server (`?schema=` is camroll's own parameter). */
export function freshDatabaseUrl(schema = `t_${randomUUID().replaceAll('-', '').slice(0, 24)}`): string {
  const base = process.env.CAMROLL_TEST_DATABASE_URL;
  if (!base) throw new Error('the postgres test project needs CAMROLL_TEST_DATABASE_URL');
  const url = new URL(base);
  url.searchParams.set('schema', schema);
  return url.toString();
}

/**
 * `serve` arguments for the selected store: on PostgreSQL, `--db :memory:` (a fresh, empty
 * database) becomes `--database` on a fresh schema; a `--db FILE` stays SQLite, and so does
 * a run without `--keys` (it checks that `:memory:` writes no local key file, a SQLite rule).
 */
export function withTestStore(args: readonly string[]): string[] {
  if (E2E_STORE === 'sqlite' || !args.includes('--keys')) return [...args];
  const out: string[] = [];
  for (let i = 0; i < args.length; i += 1) {
    if (args[i] === '--db' && args[i + 1] === ':memory:') {
      out.push('--database', freshDatabaseUrl());
      i += 1;
    } else {
      out.push(args[i] as string);
    }
  }
  return out;
}
