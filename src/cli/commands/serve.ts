import { Option, type Command } from 'commander';
import type { ServedRequest } from '../../service/app.js';
import { z } from 'zod';
import type { CliContext } from '../context.js';
import { writeLine } from '../context.js';
import { flagsError, wholeNumber } from '../flag-values.js';
import { loadService } from '../lazy.js';
import { UsageError } from '../../errors.js';
import { isPostgresUrl } from '../../service/store/open.js';
import { emit } from '../output/emit.js';

const ServeFlags = z.object({
  host: z.string().min(1),
  port: z.number().int().min(0).max(65535),
  db: z.string().min(1).optional(),
  database: z.string().min(1).optional(),
  catalog: z.string().min(1).optional(),
  keys: z.string().min(1).optional(),
  logRequests: z.boolean().default(false),
  logFormat: z.enum(['pretty', 'json']).default('pretty'),
  ingestThreads: z.number().int().min(0).max(64).optional(),
});

/** One request log line: `GET /v1/ping 200 0.4 ms`, or a JSON object with the time. */
export function describeServed(
  served: ServedRequest,
  format: 'pretty' | 'json',
  now: () => Date = () => new Date(),
): string {
  const durationMs = Math.round(served.durationMs * 10) / 10;
  if (format === 'json') {
    const { method, path, status, code } = served;
    return `${JSON.stringify({ time: now().toISOString(), method, path, status, code, duration_ms: durationMs })}\n`;
  }
  return `${served.method} ${served.path} ${served.status}${served.code === null ? '' : ` ${served.code}`} ${durationMs} ms\n`;
}

/**
 * The PostgreSQL connection string to use, if any: `--database` > `--db` (SQLite) >
 * CAMROLL_DATABASE_URL > the default SQLite file. Never echoes the string (it may hold a password).
 */
export function chooseDatabase(
  db: string | undefined,
  database: string | undefined,
  envUrl: string | undefined,
): string | undefined {
  if (db !== undefined && database !== undefined)
    throw new UsageError('give either --db FILE (SQLite) or --database URL (PostgreSQL), not both');
  if (db !== undefined) return undefined;
  const url = database ?? (envUrl === '' ? undefined : envUrl);
  if (url !== undefined && !isPostgresUrl(url)) {
    const source = database !== undefined ? '--database' : 'CAMROLL_DATABASE_URL';
    throw new UsageError(
      `${source} must be a postgres:// or postgresql:// connection string; use --db FILE for SQLite`,
    );
  }
  return url;
}

/**
 * Said on stderr when `serve` listens on 0.0.0.0 or ::: the service speaks plain HTTP to whoever reaches the machine.
 */
export function everyInterfaceWarning(host: string): string {
  return (
    `camroll: warning: listening on every interface (${host}) in plain HTTP: anyone who can reach this machine can ` +
    `call ` +
    'the service, and keys and metadata cross the network unencrypted; --host 127.0.0.1 serves this machine only'
  );
}

/** Resolves once the signal aborts (Ctrl-C or SIGTERM). */
function untilAborted(signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) resolve();
    else signal.addEventListener('abort', () => resolve(), { once: true });
  });
}

/** `camroll serve`: the embedded partner service over HTTP until SIGINT/SIGTERM. */
export function registerServe(program: Command, ctx: CliContext): void {
  program
    .command('serve')
    .description('Run the embedded partner service over HTTP (stops cleanly on Ctrl-C or SIGTERM).')
    .option('--host <host>', 'address to listen on', '127.0.0.1')
    .option(
      '--port <port>',
      'port to listen on, 0 to 65535 (0 picks a free one)',
      wholeNumber('--port', 0, 65535),
      8787,
    )
    .option('--db <file>', 'SQLite database file, or :memory: (default: service.db in the data folder)')
    .option(
      '--database <url>',
      'PostgreSQL connection string postgres://… for several instances on one database (or CAMROLL_DATABASE_URL)',
    )
    .option('--catalog <file>', 'catalog JSON file (default: the bundled demo catalog)')
    .option('--keys <file>', 'keys JSON file (default: one local sandbox key)')
    .option(
      '--log-requests',
      'one line on stderr per answered request: method, path, status, error code, duration (never a header)',
    )
    .option(
      '--ingest-threads <n>',
      'threads that parse and match ingest batches beside the event loop, 0 to 64 (default: 1 with four or more ' +
        'cores, else 0)',
      wholeNumber('--ingest-threads', 0, 64),
    )
    .addOption(
      new Option('--log-format <format>', 'request log lines as readable text or JSON lines')
        .choices(['pretty', 'json'])
        .default('pretty'),
    )
    .action(async (rawFlags: unknown) => {
      const parsed = ServeFlags.safeParse(rawFlags);
      if (!parsed.success) throw flagsError(parsed.error);
      const flags = parsed.data;
      const databaseUrl = chooseDatabase(flags.db, flags.database, ctx.env.CAMROLL_DATABASE_URL);
      // Loaded here so that every other command starts without Fastify and SQLite.
      const { startService, defaultIngestThreads, isWildcardHost } = await loadService();
      const service = await startService({
        host: flags.host,
        port: flags.port,
        dbPath: flags.db,
        ...(databaseUrl === undefined ? {} : { databaseUrl }),
        catalogPath: flags.catalog,
        keysPath: flags.keys,
        env: ctx.env,
        dataDir: ctx.paths.data,
        logger: { level: 'warn', stream: ctx.stderr },
        ingestThreads: flags.ingestThreads ?? defaultIngestThreads(),
        ...(flags.logRequests
          ? { onResponse: (served: ServedRequest) => emit(ctx.stderr, describeServed(served, flags.logFormat)) }
          : {}),
      });
      // A key the user supplied is never echoed; a generated one must be shown to be usable.
      if (service.localKeySource === 'env') writeLine(ctx.stdout, 'local key: (from CAMROLL_API_KEY)');
      else if (service.localKey !== null) writeLine(ctx.stdout, `local key: ${service.localKey}`);
      writeLine(ctx.stdout, `listening on ${service.baseUrl}`);
      // On every interface (0.0.0.0 or ::): reachable from the network, in plain HTTP.
      if (isWildcardHost(flags.host)) writeLine(ctx.stderr, everyInterfaceWarning(flags.host));

      await untilAborted(ctx.signal);
      writeLine(ctx.stderr, 'stopping: finishing in-flight requests');
      await service.close();
      writeLine(ctx.stderr, 'stopped');
    });
}
