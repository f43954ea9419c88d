import { dirname, join } from 'node:path';
import {
  createClient,
  type ApiClient,
  type ClientOptions,
  type RequestTrace,
  type RetryNotice,
  type WaitNotice,
} from '../client/index.js';
import type { ConfigReader } from '../config/reader.js';
import { decideTarget, resolveSettings } from '../config/resolve.js';
import { validateBaseUrl, validateProfileName } from '../config/schema.js';
import {
  openUserDirectory,
  readUserDirectory,
  type UserDirectory,
  type UserDirectoryReader,
} from '../config/user-directory.js';
import { ConfigError, EmbeddedServiceError, UsageError } from '../errors.js';
import type { AppPaths } from '../paths.js';
import { checkBaseUrl } from '../rules/base-url.js';
import { commandConfig } from './command-config.js';
import { loadConfigWriter, loadService } from './lazy.js';
import { formatSeconds } from '../util/seconds.js';
import type { CliContext } from './context.js';
import type { ConnectionFlags } from './connection-options.js';
import { emit } from './output/emit.js';

export { addConnectionOptions, type ConnectionFlags } from './connection-options.js';

export interface ConnectionTarget {
  kind: 'remote' | 'embedded';
  /** What the client talks to (for the embedded service, a fresh 127.0.0.1 port every run). */
  baseUrl: string;
  profile: string | null;
  /**
   * A stable name for where the data lives, for anything kept between runs (remembered user
   * ids, sync journals): the base URL for a remote host, `embedded:<database file>` for the
   * embedded service, whose port changes on every run.
   */
  identity: string;
}

export interface Connection {
  client: ApiClient;
  /** The key requests carry, for raw probes (`doctor`); never printed. Null when none is configured. */
  apiKey: string | null;
  target: ConnectionTarget;
  /** The configuration the settings came from. */
  store: ConfigReader;
  /** Closes the client and, when one was started, the embedded service. */
  close(): Promise<void>;
}

export interface OpenConnectionOptions {
  ctx: CliContext;
  flags: ConnectionFlags;
  /** false for calls that need no key (ping). */
  requireKey?: boolean;
  /** Passed to createClient (timeouts, retry policy, onRetry). */
  client?: Omit<ClientOptions, 'baseUrl' | 'apiKey' | 'allowInsecureHttp'>;
  /** Defaults to the command's reader of the configuration in camroll's config folder (`commandConfig`). */
  store?: ConfigReader;
}

/** The embedded service's database file (its data lives there whatever port it gets). */
function embeddedDbPath(paths: AppPaths): string {
  return join(paths.data, 'service.db');
}

/**
 * Where a command's requests would go, named as things kept between runs are keyed (journals,
 * the user directory), without starting anything: the base URL, or `embedded:<database>`.
 */
export function targetIdentity(
  ctx: CliContext,
  flags: ConnectionFlags,
  store: ConfigReader = commandConfig(ctx),
): string {
  checkFlags(flags);
  return identityOf(decideTarget(resolveSettings({ flags, env: ctx.env, store }), { requireKey: false }), ctx.paths);
}

/**
 * The one naming of where requests go, for `targetIdentity` and `openConnection` alike: the base
 * URL through the client's own check (a stored URL is kept as written, and a trailing slash must
 * not split the user directory and the journals), or `embedded:<database>`.
 */
function identityOf(decision: { kind: 'remote'; baseUrl: string } | { kind: 'embedded' }, paths: AppPaths): string {
  return decision.kind === 'remote' ? checkBaseUrl(decision.baseUrl) : `embedded:${embeddedDbPath(paths)}`;
}

/** A bad flag is a usage error (exit 2); a bad stored or environment value is a config error. */
function checkFlags(flags: ConnectionFlags): void {
  if (flags.baseUrl !== undefined) asUsage(() => validateBaseUrl(flags.baseUrl as string));
  if (flags.profile !== undefined) asUsage(() => validateProfileName(flags.profile as string));
}

/**
 * Whether config.json still holds ids an older camroll kept there (a file that cannot be read fails later, where it is
 * read).
 */
function hasLegacyUsers(reader: ConfigReader): boolean {
  try {
    return Object.keys(reader.legacyUsers()).length > 0;
  } catch {
    return false;
  }
}

/**
 * Opens the directory of users known on this machine to read only (`--email` lookups, `users
 * list`): nothing is created or changed. Only ids an older camroll kept in config.json make it
 * open for writing, once, to take them over.
 */
export async function readDirectory(ctx: CliContext): Promise<UserDirectoryReader> {
  if (hasLegacyUsers(commandConfig(ctx))) return openDirectory(ctx);
  return readUserDirectory({ path: join(ctx.paths.data, 'users.sqlite3') });
}

/** Opens the directory of users known on this machine (taking over ids an older camroll kept in config.json). */
export async function openDirectory(ctx: CliContext): Promise<UserDirectory> {
  return (await directoryOpener(ctx))();
}

/**
 * What openDirectory loads, without opening the directory yet: the returned function opens it
 * (creating the file) when first called, for a command that may never need it (`sync --user`).
 */
export async function directoryOpener(ctx: CliContext): Promise<() => UserDirectory> {
  const reader = commandConfig(ctx);
  // Writing the file back needs conf: loaded only when there are ids to take over (a file of an
  // older camroll).
  const legacyFound = hasLegacyUsers(reader);
  const writer = legacyFound
    ? (await loadConfigWriter()).createConfigStore({ cwd: dirname(reader.path), reader })
    : null;
  return () =>
    openUserDirectory({
      path: join(ctx.paths.data, 'users.sqlite3'),
      legacy: () => reader.legacyUsers(),
      legacyTaken: () => writer?.dropLegacyUsers(),
    });
}

/**
 * Resolves where requests go (flags > env > stored) and opens a client. With no base URL
 * anywhere, starts the embedded service in-process on 127.0.0.1 and says so on stderr.
 */
export async function openConnection(options: OpenConnectionOptions): Promise<Connection> {
  const { ctx, flags } = options;
  checkFlags(flags);

  const store = options.store ?? commandConfig(ctx);
  const settings = resolveSettings({ flags, env: ctx.env, store });
  const profile = settings.profile.value;
  const decision = decideTarget(settings, { requireKey: options.requireKey !== false });
  const clientOptions: Omit<ClientOptions, 'baseUrl' | 'apiKey'> = {
    onRetry: (notice) => emit(ctx.stderr, `camroll: ${describeRetry(notice)}\n`),
    onWaiting: (notice) => emit(ctx.stderr, `camroll: ${describeWait(notice)}\n`),
    ...(flags.retries !== undefined ? { retry: { maxAttempts: flags.retries + 1 } } : {}),
    ...(flags.timeout !== undefined ? { timeoutMs: flags.timeout * 1000 } : {}),
    ...options.client,
    // Both the verbose trace and the caller's own observer (sync's outage tracker) see every request.
    onRequest: (trace: RequestTrace) => {
      if (flags.verbose || flags.debug) emit(ctx.stderr, describeTrace(trace));
      options.client?.onRequest?.(trace);
    },
    traceBodies: flags.debug === true,
  };
  if (decision.kind === 'remote') {
    const client = createClient({
      ...clientOptions,
      baseUrl: decision.baseUrl,
      apiKey: decision.apiKey,
      allowInsecureHttp: decision.allowInsecureHttp,
    });
    return {
      client,
      apiKey: decision.apiKey,
      target: { kind: 'remote', baseUrl: client.baseUrl, profile, identity: identityOf(decision, ctx.paths) },
      store,
      close: () => client.close(),
    };
  }
  if (decision.why !== null) emit(ctx.stderr, `camroll: ${decision.why}\n`);
  return openEmbedded(ctx, store, profile, clientOptions);
}

async function openEmbedded(
  ctx: CliContext,
  store: ConfigReader,
  profile: string | null,
  clientOptions: Omit<ClientOptions, 'baseUrl' | 'apiKey'>,
): Promise<Connection> {
  const dataDir = ctx.paths.data;
  const dbPath = embeddedDbPath(ctx.paths);
  const { startService } = await loadService();
  emit(ctx.stderr, `camroll: no base URL configured; using the embedded local service (data: ${dbPath})\n`);
  const service = await startService({ host: '127.0.0.1', port: 0, dbPath, dataDir, env: ctx.env });
  if (service.localKey === null) {
    await service.close();
    throw new EmbeddedServiceError('the embedded service started without a local key');
  }
  const client = createClient({ ...clientOptions, baseUrl: service.baseUrl, apiKey: service.localKey });
  return {
    client,
    apiKey: service.localKey,
    target: {
      kind: 'embedded',
      baseUrl: client.baseUrl,
      profile,
      identity: identityOf({ kind: 'embedded' }, ctx.paths),
    },
    store,
    close: async () => {
      try {
        await client.close();
      } finally {
        await service.close();
      }
    },
  };
}

/** Runs `use` on an open connection and always closes it. */
export async function withConnection<T>(
  options: OpenConnectionOptions,
  use: (connection: Connection) => Promise<T>,
): Promise<T> {
  const connection = await openConnection(options);
  try {
    return await use(connection);
  } finally {
    await connection.close();
  }
}

/** The stderr lines of one traced request: `camroll: GET <url> -> 200 (12 ms, attempt 1)`, and bodies with --debug. */
export function describeTrace(trace: RequestTrace): string {
  const outcome = trace.status === null ? 'no answer' : String(trace.status);
  const code = trace.code === null ? '' : ` ${trace.code}`;
  const lines = [
    `camroll: ${trace.method} ${trace.url} -> ${outcome}${code} (${Math.round(trace.durationMs)} ms, attempt ` +
      `${trace.attempt})`,
  ];
  if (trace.requestBody !== undefined) lines.push(`  request body: ${trace.requestBody}`);
  if (trace.responseBody !== undefined) lines.push(`  response body: ${trace.responseBody}`);
  return `${lines.join('\n')}\n`;
}

/** One line for a request that has had no answer for a few seconds: who is waited for, and for how long at most. */
export function describeWait(notice: WaitNotice): string {
  const seconds = (ms: number): string => formatSeconds(ms, { short: true });
  return (
    `waiting for ${notice.origin}: no answer after ${seconds(notice.waitedMs)} (gives up after ` +
    `${seconds(notice.timeoutMs)})`
  );
}

/** One line for stderr as a retry is sent (its wait is over). */
export function describeRetry(notice: RetryNotice): string {
  // A tenth under 10 s (`1.0 s`), whole seconds from there (a Retry-After of `30 s`).
  const delay =
    notice.delayMs < 10_000
      ? formatSeconds(notice.delayMs)
      : formatSeconds(Math.round(notice.delayMs / 1000) * 1000, { short: true });
  return `${notice.error.message} [${notice.error.code}]; retrying after ${delay} (attempt ${notice.attempt + 1})`;
}

function asUsage<T>(check: () => T): T {
  try {
    return check();
  } catch (error) {
    if (error instanceof ConfigError) throw new UsageError(error.message);
    throw error;
  }
}
