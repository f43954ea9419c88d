import { join } from 'node:path';
import { VERSION_PREFIX } from '../contract/paths.js';
import { createApp, type AppLoggerOptions, type ServedRequest } from './app.js';
import { loadCatalog } from './catalog/index.js';
export { defaultIngestThreads } from './ingest-threads.js';
import type { LoadLimits } from './load-limits.js';
import { advertisedHost, listenErrorFrom } from './listen-address.js';
export { isWildcardHost } from './listen-address.js';
import { loadKeysFile, localKeyEntry, resolveLocalKey, type KeyEntry, type LocalKeySource } from './keys.js';
import { openStoreAt, postgresTarget } from './store/open.js';

export interface StartServiceOptions {
  host: string;
  /** 0 picks a free port. */
  port: number;
  /** SQLite file, or ':memory:'. Default: `<data folder>/service.db`. */
  dbPath?: string;
  /** A postgres:// connection string: the PostgreSQL store instead of SQLite (`dbPath` is then unused). */
  databaseUrl?: string;
  /** Catalog file; default the bundled demo catalog. */
  catalogPath?: string;
  /** Keys file; without it one local key (partner `local`, sandbox) is used. */
  keysPath?: string;
  /** Read for CAMROLL_API_KEY. */
  env: NodeJS.ProcessEnv;
  /** Data folder for the default database and the stored local key (`ctx.paths.data`). */
  dataDir: string;
  logger?: AppLoggerOptions | false;
  clock?: () => number;
  /** Told after every answered request (`serve --log-requests`). */
  onResponse?: (served: ServedRequest) => void;
  /** Load shedding, connection cap and timeouts (default LOAD_LIMIT_DEFAULTS). */
  limits?: Partial<LoadLimits>;
  /** Threads that parse and match ingest batches (default 0; `serve` uses defaultIngestThreads()). */
  ingestThreads?: number;
}

export interface RunningService {
  /** `http://HOST:PORT/v1`, with the real port; for 0.0.0.0 or ::, a host a client can call (see advertisedHost). */
  baseUrl: string;
  /** The local key when no keys file was given, else null. */
  localKey: string | null;
  /** Where the local key came from (null with a keys file). */
  localKeySource: LocalKeySource | null;
  /** Stops accepting, lets in-flight requests finish, then closes the database. */
  close(): Promise<void>;
}

/** Loads catalog and keys, opens the store and listens. Used by `serve` and in-process clients. */
export async function startService(options: StartServiceOptions): Promise<RunningService> {
  const { dataDir } = options;
  // Validate everything before touching the database, so a bad file leaves nothing behind.
  const catalog = await loadCatalog(options.catalogPath);
  const dbPath = options.dbPath ?? join(dataDir, 'service.db');
  let keys: KeyEntry[];
  let localKey: string | null = null;
  let localKeySource: LocalKeySource | null = null;
  if (options.keysPath) {
    keys = await loadKeysFile(options.keysPath);
  } else {
    const local = await resolveLocalKey({ env: options.env, dataDir, persist: dbPath !== ':memory:' });
    keys = [localKeyEntry(local.key)];
    localKey = local.key;
    localKeySource = local.source;
  }

  const store = await openStoreAt(
    options.databaseUrl === undefined ? { kind: 'sqlite', path: dbPath } : postgresTarget(options.databaseUrl),
  );
  let app: Awaited<ReturnType<typeof createApp>> | undefined;
  try {
    app = await createApp({
      store,
      catalog,
      keys,
      logger: options.logger ?? false,
      clock: options.clock,
      onResponse: options.onResponse,
      limits: options.limits,
      ingestThreads: options.ingestThreads,
    });
    try {
      await app.listen({ host: options.host, port: options.port });
    } catch (error) {
      // A taken port is the user's to fix, not a bug: say which port and what to do.
      throw listenErrorFrom(error, options.host, options.port) ?? error;
    }
  } catch (error) {
    await app?.close().catch(() => undefined);
    await store.close();
    throw error;
  }
  const address = app.server.address();
  const port = typeof address === 'object' && address !== null ? address.port : options.port;
  const host = advertisedHost(options.host);

  let closing: Promise<void> | null = null;
  return {
    baseUrl: `http://${host}:${port}${VERSION_PREFIX}`,
    localKey,
    localKeySource,
    close() {
      closing ??= (async () => {
        try {
          await app.close();
        } finally {
          await store.close();
        }
      })();
      return closing;
    },
  };
}
