import { defineConfig } from 'vitest/config';

// Two kinds of test, two projects:
// - `unit`: everything that runs in-process (pure tables, the service through `app.inject`
//   or a socket on 127.0.0.1, the CLI through `run(ctx, argv)`). No build: a single file runs
//   in seconds (`npx vitest run test/rules`).
// - `e2e`: test/e2e spawns the real compiled binary, so only this project builds dist/ first
//   (its globalSetup runs only when one of its files is selected).
//
// The table of stores: every test on SQLite; with a PostgreSQL server at
// CAMROLL_TEST_DATABASE_URL (.ci/postgres.sh starts one), the service suite and the
// black-box service acceptance tests run a second time on PostgreSQL. Without it,
// test/service/store/postgres.test.ts reports itself skipped and says why.
const POSTGRES_UNIT = [
  'test/service/app.test.ts',
  'test/service/http.test.ts',
  'test/service/fuzz.test.ts',
  'test/service/store/*.test.ts',
];
const POSTGRES_E2E = ['test/e2e/acceptance-service.test.ts'];
const POSTGRES_EXCLUDE = ['test/service/store/store.lock.test.ts', 'test/service/store/postgres*.test.ts'];
const withPostgres = Boolean(process.env.CAMROLL_TEST_DATABASE_URL);
const BUILD = ['test/global-setup.ts'];

export default defineConfig({
  test: {
    // e2e tests spawn the compiled binary and real servers: give them room on 2 noisy cores.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    poolOptions: { forks: { maxForks: 2 } },
    projects: [
      // Tests written for PostgreSQL itself (store/postgres, serve-postgres) live here and skip without a server.
      { extends: true, test: { name: 'unit', include: ['test/**/*.test.ts'], exclude: ['test/e2e/**'] } },
      { extends: true, test: { name: 'e2e', include: ['test/e2e/**/*.test.ts'], globalSetup: BUILD } },
      ...(withPostgres
        ? [
            {
              extends: true as const,
              test: {
                name: 'postgres',
                include: POSTGRES_UNIT,
                exclude: POSTGRES_EXCLUDE,
                env: { CAMROLL_TEST_STORE: 'postgres' },
              },
            },
            {
              extends: true as const,
              test: {
                name: 'postgres-e2e',
                include: POSTGRES_E2E,
                globalSetup: BUILD,
                env: { CAMROLL_TEST_STORE: 'postgres' },
              },
            },
          ]
        : []),
    ],
  },
});
