import rateLimit from '@fastify/rate-limit';
import Fastify, { type FastifyInstance } from 'fastify';
import { API_KEY_HEADER, VERSION_PREFIX } from '../contract/paths.js';
import type { Catalog } from './catalog/index.js';
import { createCursorCodec } from './cursor.js';
import type { ServiceDeps } from './deps.js';
import { clientErrorHandler, installErrorHandling, sendError } from './errors-plugin.js';
import { AUTH_THROTTLE_DEFAULTS, createAuthThrottle, type AuthThrottleOptions } from './auth-throttle.js';
import { createKeyRing, type KeyEntry } from './keys.js';
import { INVALID_JSON_MESSAGE, parseJsonBody } from './json-body.js';
import { installLoadLimits, resolveLoadLimits, serverOptionsOf, type LoadLimits } from './load-limits.js';
import { createIngestPlanner } from './ingest-threads.js';
import { buildMatcherTables } from './matching/index.js';
import { registerHistoryRoutes } from './routes/history.js';
import { registerMediaRoutes } from './routes/media.js';
import { registerSystemRoutes } from './routes/system.js';
import { registerUserRoutes } from './routes/users.js';
import { ServiceError } from './service-error.js';
import type { Store } from './store/types.js';

/** Largest request body in bytes: 200 generous items fit many times over. */
export const BODY_LIMIT_BYTES = 8 * 1024 * 1024; // 8 MiB

export interface AppLoggerOptions {
  level: 'fatal' | 'error' | 'warn' | 'info' | 'debug';
  /** Where log lines go (stderr for `serve`). */
  stream: NodeJS.WritableStream;
}

/** One answered request, for `serve --log-requests`: never a header (the key is one). */
export interface ServedRequest {
  method: string;
  /** Path and query as requested. */
  path: string;
  status: number;
  /** The envelope's code for a failure, else null. */
  code: string | null;
  durationMs: number;
}

export interface CreateAppOptions {
  store: Store;
  catalog: Catalog;
  /** Validated keys file entries. */
  keys: readonly KeyEntry[];
  /** Milliseconds since the epoch (default Date.now). */
  clock?: () => number;
  /** Off by default; the API key header is always redacted. */
  logger?: AppLoggerOptions | false;
  /** Threads that parse and match ingest batches beside the event loop (default 0: in this thread). */
  ingestThreads?: number;
  /** Told after every answered request (request logs). */
  onResponse?: (served: ServedRequest) => void;
  /** Load shedding, connection cap and timeouts (defaults: LOAD_LIMIT_DEFAULTS). */
  limits?: Partial<LoadLimits>;
  /** How wrong keys are slowed down per client address (default AUTH_THROTTLE_DEFAULTS); false: never. */
  authThrottle?: AuthThrottleOptions | false;
}

/** Builds the embedded partner service as a Fastify instance (not listening). */
export async function createApp(options: CreateAppOptions): Promise<FastifyInstance> {
  const keys = createKeyRing(options.keys);
  const limits = resolveLoadLimits(options.limits);
  const throttle =
    options.authThrottle === false
      ? null
      : createAuthThrottle({ clock: options.clock, ...(options.authThrottle ?? AUTH_THROTTLE_DEFAULTS) });
  const cursors = createCursorCodec(await options.store.cursorSecret());
  const ingest = await createIngestPlanner({
    threads: options.ingestThreads ?? 0,
    tables: buildMatcherTables(options.catalog),
  });
  const deps: ServiceDeps = {
    store: options.store,
    catalog: options.catalog,
    ingest,
    cursors,
    clock: options.clock ?? Date.now,
  };
  try {
    return await buildApp(options, deps, { keys, limits, throttle });
  } catch (error) {
    // No app to close: its threads stop here.
    await ingest.close();
    throw error;
  }
}

/** The Fastify instance around `deps`: parsers, hooks, limits and routes. */
async function buildApp(
  options: CreateAppOptions,
  deps: ServiceDeps,
  {
    keys,
    limits,
    throttle,
  }: {
    keys: ReturnType<typeof createKeyRing>;
    limits: LoadLimits;
    throttle: ReturnType<typeof createAuthThrottle> | null;
  },
): Promise<FastifyInstance> {
  const app = Fastify({
    logger: options.logger
      ? {
          level: options.logger.level,
          stream: options.logger.stream,
          redact: { paths: [`req.headers["${API_KEY_HEADER}"]`, 'req.headers.authorization'], censor: '[redacted]' },
        }
      : false,
    bodyLimit: BODY_LIMIT_BYTES,
    ...serverOptionsOf(limits),
    // Fastify's own 503 while closing has no envelope; a request that still arrives on an open
    // connection is served (with Connection: close) before the store closes.
    return503OnClosing: false,
    // uuids are 36 characters; any longer id (up to what fits in the request line, which
    // Node caps at 16 KiB of headers) still reaches auth and then user_not_found.
    routerOptions: { maxParamLength: 64 * 1024 },
    clientErrorHandler,
    frameworkErrors: (_error, _request, reply) => {
      void sendError(reply, new ServiceError('invalid_request', 'malformed URL'));
    },
  });
  // While closing, every answer says Connection: close. Node closes the connections that are
  // idle when closing starts; one whose request was still running (an ingest waiting for its
  // thread) would otherwise stay open until the client's keep-alive ends, and so would close().
  let closing = false;
  app.addHook('preClose', (done) => {
    closing = true;
    throttle?.releaseAll();
    done();
  });
  app.addHook('onSend', (_request, reply, payload, done) => {
    if (closing) reply.header('connection', 'close');
    done(null, payload);
  });
  // After the server has stopped and in-flight requests are answered.
  app.addHook('onClose', () => deps.ingest.close());
  app.decorateRequest('partnerKey', null);
  app.decorateRequest('errorCode', null);
  app.decorateRequest('ingestPlan', null);
  app.decorateRequest('leaveQueue', null);
  const onResponse = options.onResponse;
  if (onResponse !== undefined) {
    app.addHook('onResponse', async (request, reply) => {
      onResponse({
        method: request.method,
        path: request.url,
        status: reply.statusCode,
        code: request.errorCode,
        durationMs: reply.elapsedTime,
      });
    });
  }

  // The steps of a request are registered below and in the routes; their order is written
  // once, in INGEST_STEPS (ingest-steps.ts), and tested there.
  // Step `body`: only application/json; an empty body is "no body" (sync-complete takes none, and some
  // clients still send the content type). Malformed JSON and prototype poisoning are 400s.
  // A route marked `rawJsonBody` gets the bytes instead and parses them itself (ingest does,
  // in its thread).
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, body, done) => {
    const bytes = body as Buffer;
    if (request.routeOptions.config.rawJsonBody) {
      done(null, bytes.length === 0 ? undefined : bytes);
      return;
    }
    const parsed = parseJsonBody(bytes.toString('utf8'));
    if (parsed.ok) done(null, parsed.value);
    else done(new ServiceError('invalid_request', INVALID_JSON_MESSAGE), undefined);
  });
  // Any other content type, or none: 415 when a body comes with it. A POST that carries no
  // body at all (sync-complete) is not refused for a stray Content-Type.
  app.addContentTypeParser('*', (request, _payload, done) => {
    const length = request.headers['content-length'];
    if (request.headers['transfer-encoding'] === undefined && (length === undefined || length === '0')) {
      done(null, undefined);
      return;
    }
    done(
      new ServiceError('unsupported_media_type', 'requests with a body must send Content-Type: application/json'),
      undefined,
    );
  });

  installErrorHandling(app);
  // Steps `limits` and `admission` (root onRequest hooks: they run before the v1 scope's).
  await installLoadLimits(app, limits);

  // Step `rate limit`.
  await app.register(rateLimit, {
    global: true,
    // A route's own onRequest hooks run after the v1 scope's, so after the key is known (the
    // limit applies per key, not per address), and before the body is read: a throttled
    // request costs the service its headers only, never the read and parse of its body.
    hook: 'onRequest',
    keyGenerator: (request) => request.partnerKey?.id ?? 'anonymous',
    allowList: (request) => request.partnerKey?.rateLimit == null,
    max: async (request) => request.partnerKey?.rateLimit?.limit ?? Number.MAX_SAFE_INTEGER,
    timeWindow: async (request) => (request.partnerKey?.rateLimit?.windowSeconds ?? 60) * 1000,
    errorResponseBuilder: (_request, context) =>
      new ServiceError('rate_limited', `rate limit reached; retry in ${context.after}`, {
        details: { limit: context.max },
      }),
  });

  await app.register(
    async (v1) => {
      // Step `key`: auth before anything touches a user; /ping is open, unknown paths answer 404/405.
      v1.addHook('onRequest', async (request) => {
        if (request.is404 || request.routeOptions.config.open) return;
        const presented = request.headers[API_KEY_HEADER];
        // An address that has tried its wrong keys for the minute gets no answer about any key
        // (a right one included): however many connections it opens, it learns nothing more.
        const retryAfter = presented === undefined ? null : (throttle?.spent(request.ip) ?? null);
        if (retryAfter !== null) {
          throw new ServiceError(
            'rate_limited',
            `too many wrong keys from this address; the key was not checked; retry in ${retryAfter} s`,
            { headers: { 'retry-after': String(retryAfter) }, details: { per: 'address' } },
          );
        }
        const key = keys.find(typeof presented === 'string' ? presented : undefined);
        if (!key) {
          // A wrong key (not a missing one) is slowed down per address, and still answered 401.
          const wait = presented === undefined ? null : (throttle?.fail(request.ip) ?? null);
          if (wait !== null) {
            // The wait must not keep a right key's request out of the API queue.
            request.leaveQueue?.();
            await wait;
          }
          throw new ServiceError('invalid_api_key', 'missing or invalid API key');
        }
        request.partnerKey = key;
      });
      registerSystemRoutes(v1);
      registerUserRoutes(v1, deps);
      registerMediaRoutes(v1, deps);
      registerHistoryRoutes(v1, deps);
    },
    { prefix: VERSION_PREFIX },
  );

  return app;
}
