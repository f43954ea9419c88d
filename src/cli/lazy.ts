/**
 * The command line's deferred loads: each heavy part a command may never need, behind one
 * named loader. The rules they keep are in docs/ARCHITECTURE.md ("Load rules") and the
 * start-up tests hold them (test/e2e/start-up.test.ts). This module imports nothing but
 * types, so it sits in no import circle; a module of src/cli loads these parts only here.
 */

/** The scanner (walk, threads, readers): `camroll scan`. Other commands never pay for it. */
export const loadScanner = async (): ReturnType<typeof import('../scan/index.js').loadScanner> =>
  (await import('../scan/index.js')).loadScanner();

/** The time-zone lookup and luxon, for `scan --explain` of a time placed by coordinates. */
export const loadTimeZones = (): Promise<
  [Awaited<ReturnType<typeof import('../scan/index.js').loadTimezone>>, typeof import('luxon')]
> => Promise.all([import('../scan/index.js').then((scan) => scan.loadTimezone()), import('luxon')]);

/** The service (Fastify, SQLite): `camroll serve` and the embedded service. Remote commands never load it. */
export const loadService = (): Promise<typeof import('../service/server.js')> => import('../service/server.js');

/** The OpenAPI document's builder (the contract schemas): `camroll openapi`. */
export const loadOpenApi = (): Promise<typeof import('../service/openapi.js')> => import('../service/openapi.js');

/** The connection (HTTP client, undici): loaded by a sync once its scan has started. */
export const loadConnection = (): Promise<typeof import('./connection.js')> => import('./connection.js');

/** The config writer (conf): only to write a file back; reading the config never loads it. */
export const loadConfigWriter = (): Promise<typeof import('../config/store.js')> => import('../config/store.js');

/** A sync's summary and exit: loaded when a pass ends, so the walk starts first. */
export const loadSyncOutcome = (): Promise<typeof import('./output/sync-outcome.js')> =>
  import('./output/sync-outcome.js');

/** `--report FILE` of a sync: the JSON-lines file and the report's records. */
export const loadSyncReportFile = (): Promise<
  [typeof import('./output/lines.js'), typeof import('./output/sync-report.js')]
> => Promise.all([import('./output/lines.js'), import('./output/sync-report.js')]);

/** `--log-file FILE` of a sync. */
export const loadLogFile = (): Promise<typeof import('./output/log-file.js')> => import('./output/log-file.js');

/** The reader of `users import` files (csv-parse): only when a file is imported. */
export const loadImportFile = (): Promise<typeof import('../config/import-file.js')> =>
  import('../config/import-file.js');

/** `--html FILE` (the page's writer, the map's land and d3-geo): only when a page is written. */
export const loadHtmlReport = (): Promise<typeof import('./output/html-report.js')> =>
  import('./output/html-report.js');
