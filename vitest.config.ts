import { defineConfig } from 'vitest/config';

// The table of stores: every test on SQLite; with a PostgreSQL server at
// CAMROLL_TEST_DATABASE_URL (.ci/postgres.sh starts one), the service suite and the
// black-box service acceptance tests run a second time on PostgreSQL. Without it,
// test/service/store-postgres.test.ts reports itself skipped and says why.
const POSTGRES_SUITE = [
  'test/service/app.test.ts',
  'test/service/http.test.ts',
  'test/service/fuzz.test.ts',
  'test/service/store-*.test.ts',
  'test/e2e/acceptance-service.test.ts',
];
const withPostgres = Boolean(process.env.CAMROLL_TEST_DATABASE_URL);

export default defineConfig({
  test: {
    globalSetup: ['test/global-setup.ts'],
    // e2e tests spawn the compiled binary and real servers: give them room on 2 noisy cores.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    poolOptions: { forks: { maxForks: 2 } },
    projects: [
      // Tests written for PostgreSQL itself (store-postgres, serve-postgres) live here and skip without a server.
      { extends: true, test: { name: 'default', include: ['test/**/*.test.ts'] } },
      ...(withPostgres
        ? [
            {
              extends: true as const,
              test: {
                name: 'postgres',
                include: POSTGRES_SUITE,
                exclude: ['test/service/store-sqlite*.test.ts', 'test/service/store-postgres*.test.ts'],
                env: { CAMROLL_TEST_STORE: 'postgres' },
              },
            },
          ]
        : []),
    ],
  },
});
