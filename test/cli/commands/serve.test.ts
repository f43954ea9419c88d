import { describe, expect, it } from 'vitest';
import { chooseDatabase } from '../../../src/cli/commands/serve.js';
import { UsageError } from '../../../src/errors.js';
import { describeDatabaseUrl, postgresTarget } from '../../../src/service/store/open.js';

const PG = 'postgres://camroll:secret@db.internal:5432/camroll';

describe('serve: choosing the store', () => {
  it('prefers --database, then --db (SQLite), then CAMROLL_DATABASE_URL', () => {
    expect(chooseDatabase(undefined, PG, undefined)).toBe(PG);
    expect(chooseDatabase(undefined, PG, 'postgresql://other/db')).toBe(PG);
    expect(chooseDatabase('./service.db', undefined, PG)).toBeUndefined();
    expect(chooseDatabase(undefined, undefined, PG)).toBe(PG);
    expect(chooseDatabase(undefined, undefined, '')).toBeUndefined();
    expect(chooseDatabase(undefined, undefined, undefined)).toBeUndefined();
  });

  it('refuses both flags, and a URL that is not PostgreSQL, without echoing it', () => {
    expect(() => chooseDatabase('a.db', PG, undefined)).toThrow(UsageError);
    for (const [flag, env] of [
      ['mysql://u:hunter2@h/db', undefined],
      [undefined, 'file:hunter2.db'],
    ] as const) {
      let message = '';
      try {
        chooseDatabase(undefined, flag, env);
      } catch (error) {
        expect(error).toBeInstanceOf(UsageError);
        message = (error as Error).message;
      }
      expect(message).toMatch(/postgres:\/\//);
      expect(message).not.toContain('hunter2');
    }
  });

  it("names a database by host and path only, and splits off camroll's schema parameter", () => {
    expect(describeDatabaseUrl(PG)).toBe('db.internal:5432/camroll');
    expect(postgresTarget(`${PG}?schema=staging&sslmode=disable`)).toEqual({
      kind: 'postgres',
      url: `${PG}?sslmode=disable`,
      schema: 'staging',
    });
    expect(postgresTarget(PG)).toEqual({ kind: 'postgres', url: PG });
  });
});
