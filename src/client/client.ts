import type { Dispatcher } from 'undici';
import type { z } from 'zod';
import {
  API_KEY_HEADER,
  EventsPage,
  IngestResponse,
  MAX_BATCH_ITEMS,
  MIN_BATCH_ITEMS,
  paths,
  Stats,
  UserCreateRequest,
  UserCreateResponse,
  type Event,
  type MediaMetadata,
} from '../contract/index.js';
import {
  type ApiError,
  ConfigError,
  ContractViolationError,
  InterruptedError,
  NetworkError,
  RequestError,
  type CamrollError,
} from '../errors.js';
import { checkBaseUrl, checkTransport } from '../rules/base-url.js';
import { VERSION } from '../version.js';
import { apiErrorFromResponse, networkErrorFrom, parseBody, type ResponseFacts } from './http-errors.js';
import { isWellFormedIngestResponse } from './ingest-check.js';
import {
  decideRetry,
  isTimeoutCode,
  isTransientNetworkCode,
  resolveRetryPolicy,
  type RequestRetryPolicy,
} from './retry.js';
import { createSchemeProbe, describeMismatch } from './scheme-probe.js';
import { readHostAnswer, redact } from './scrub.js';
import { HealthResult, PingResult, SyncCompleteResult } from './schemas.js';
import { abortableSleep, type Sleep } from './sleep.js';
import { Agent, connectOptions, request } from './undici.js';

/** Told as each retry is sent (after its wait), so callers can show the retry or count throttling. */
export interface RetryNotice {
  endpoint: string;
  /** Attempts made so far. */
  attempt: number;
  delayMs: number;
  error: CamrollError;
}

/**
 * Told once when a request has had no answer for a few seconds, so a display can say it is
 * waiting for the host rather than look stuck. Not told again until some request is answered.
 */
export interface WaitNotice {
  /** `METHOD <full URL>`. */
  endpoint: string;
  /** `https://host:port`: what is being waited for. */
  origin: string;
  /** How long the request has waited so far. */
  waitedMs: number;
  /** When it gives up (`--timeout`). */
  timeoutMs: number;
  /** 1 for the first try. */
  attempt: number;
}

/** One request as it went, for `--verbose` traces: never its headers (they hold the key). */
export interface RequestTrace {
  method: string;
  url: string;
  /** 1 for the first try. */
  attempt: number;
  /** Null when no answer came (a network failure). */
  status: number | null;
  /** The error code, for a failed request. */
  code: string | null;
  durationMs: number;
  /** With `traceBodies`: the bodies, cut to 2 KB, the key scrubbed. */
  requestBody?: string;
  responseBody?: string;
}

/** Bodies in traces are cut to this many characters. */
const TRACE_BODY_LIMIT = 2 * 1024;

export interface ClientOptions {
  /** Used whole, version prefix included (`https://host/v1`); a trailing slash is ignored. */
  baseUrl: string;
  /** Sent in X-PARTNER-API-KEY. Null only makes sense for ping. */
  apiKey: string | null;
  /**
   * Allows plain `http://` to a host that is not this machine (the key crosses the network in
   * clear text). Without it such a base URL is refused before any connection (checkTransport).
   */
  allowInsecureHttp?: boolean;
  /** A dispatcher the caller owns (tests: MockAgent); otherwise the client makes and closes its own. */
  dispatcher?: Dispatcher;
  retry?: Partial<RequestRetryPolicy>;
  /** Per-request limit for the headers, and for any silence while the body arrives. */
  timeoutMs?: number;
  userAgent?: string;
  sleep?: Sleep;
  random?: () => number;
  /** Told just before a retry is sent (after its wait), never for a retry that does not happen. */
  onRetry?: (notice: RetryNotice) => void;
  /** Told when requests have waited `waitNoticeMs` without an answer (see WaitNotice). */
  onWaiting?: (notice: WaitNotice) => void;
  /** Silence before `onWaiting` is told (default 5 s, or half the timeout when that is shorter). */
  waitNoticeMs?: number;
  /** Told after every request, answered or not (`--verbose`). */
  onRequest?: (trace: RequestTrace) => void;
  /** Adds the request and response bodies to traces (`--debug`). */
  traceBodies?: boolean;
  /** Milliseconds, for durations in traces (default performance.now). */
  now?: () => number;
}

export interface CallOptions {
  signal?: AbortSignal;
}

export interface EventsOptions extends CallOptions {
  cursor?: string;
  /** Page size, 1 to 100. */
  limit?: number;
  /** false asks for events without their media (lighter). */
  includeMedia?: boolean;
}

/** One partner-API client: a keep-alive connection pool, retries, validated responses. */
export interface ApiClient {
  readonly baseUrl: string;
  ping(opts?: CallOptions): Promise<PingResult>;
  health(opts?: CallOptions): Promise<HealthResult>;
  createUser(body: UserCreateRequest, opts?: CallOptions): Promise<UserCreateResponse>;
  ingest(userId: string, media: MediaMetadata[], opts?: CallOptions): Promise<IngestResponse>;
  syncComplete(userId: string, opts?: CallOptions): Promise<SyncCompleteResult>;
  events(userId: string, opts?: EventsOptions): Promise<EventsPage>;
  /** Every page, following `next_cursor` until `has_more` is false. */
  eventPages(userId: string, opts?: Omit<EventsOptions, 'cursor'>): AsyncGenerator<EventsPage>;
  /** Every event of the user, newest first, across all pages. */
  allEvents(userId: string, opts?: Omit<EventsOptions, 'cursor'>): AsyncGenerator<Event>;
  stats(userId: string, opts?: CallOptions): Promise<Stats>;
  /** Closes the connection pool (a no-op for a dispatcher the caller passed in). */
  close(): Promise<void>;
}

const DEFAULT_TIMEOUT_MS = 30 * 1000; // 30 s
const DEFAULT_WAIT_NOTICE_MS = 5 * 1000; // 5 s

interface Call<S extends z.ZodType> {
  method: 'GET' | 'POST';
  path: string;
  query?: Record<string, string>;
  body?: unknown;
  schema: S;
  /** True only for a body the schema certainly accepts (a cheaper check); false leaves it to the schema. */
  fastCheck?: (body: unknown) => boolean;
  /** Whether the call may go out without a key (ping only). */
  anonymous?: boolean;
  signal?: AbortSignal;
}

/** Creates a client for one base URL and key. */
export function createClient(options: ClientOptions): ApiClient {
  // The one base-URL rule (src/rules/base-url.ts): used whole, nothing appended.
  const baseUrl = checkBaseUrl(options.baseUrl);
  // And the one rule of where the key may go: refused here, before any connection is made.
  checkTransport(baseUrl, options.allowInsecureHttp === true);
  const apiKey = options.apiKey;
  const policy = resolveRetryPolicy(options.retry);
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const sleep = options.sleep ?? abortableSleep;
  const random = options.random ?? Math.random;
  const userAgent = options.userAgent ?? `camroll/${VERSION}`;
  const waitNoticeMs = options.waitNoticeMs ?? Math.min(DEFAULT_WAIT_NOTICE_MS, timeoutMs / 2);
  const ownDispatcher = options.dispatcher
    ? null
    : new Agent({
        keepAliveTimeout: 10 * 1000,
        connections: 16,
        connect: connectOptions(timeoutMs),
      });
  const dispatcher: Dispatcher = options.dispatcher ?? (ownDispatcher as Agent);
  // One probe per client: retries during an outage do not each ask the port again.
  const probeScheme = createSchemeProbe({ timeoutMs });

  const now = options.now ?? (() => performance.now());
  const cut = (text: string | undefined): string | undefined =>
    text === undefined
      ? undefined
      : redact(text.length > TRACE_BODY_LIMIT ? `${text.slice(0, TRACE_BODY_LIMIT)}…` : text, apiKey);

  function trace(
    call: Call<z.ZodType>,
    url: URL,
    attempt: number,
    started: number,
    outcome: { status: number | null; code: string | null; requestBody?: string; responseBody?: string },
  ): void {
    if (options.onRequest === undefined) return;
    options.onRequest({
      method: call.method,
      url: url.href,
      attempt,
      status: outcome.status,
      code: outcome.code,
      durationMs: now() - started,
      ...(options.traceBodies
        ? { requestBody: cut(outcome.requestBody), responseBody: cut(outcome.responseBody) }
        : {}),
    });
  }

  // One notice per spell of silence, however many requests are waiting in it.
  let waitingTold = false;
  /** Starts the clock of one attempt's silence; the returned function stops it (`answered`: a status came). */
  function watchSilence(endpoint: string, url: URL, attempt: number): (answered: boolean) => void {
    if (options.onWaiting === undefined) return () => undefined;
    const started = now();
    const timer = setTimeout(() => {
      if (waitingTold) return;
      waitingTold = true;
      options.onWaiting?.({ endpoint, origin: url.origin, waitedMs: now() - started, timeoutMs, attempt });
    }, waitNoticeMs);
    // A notice is no reason to keep the process alive.
    timer.unref();
    return (answered) => {
      clearTimeout(timer);
      if (answered) waitingTold = false;
    };
  }

  async function once<S extends z.ZodType>(call: Call<S>, attempt: number): Promise<z.output<S>> {
    const url = new URL(baseUrl + call.path);
    for (const [name, value] of Object.entries(call.query ?? {})) url.searchParams.set(name, value);
    const requestInfo = { method: call.method, url: url.href, baseUrl };
    const endpoint = `${call.method} ${url.href}`;
    const headers: Record<string, string> = { accept: 'application/json', 'user-agent': userAgent };
    if (apiKey) headers[API_KEY_HEADER] = apiKey;
    let payload: string | undefined;
    if (call.body !== undefined) {
      payload = JSON.stringify(call.body);
      headers['content-type'] = 'application/json';
    }
    let facts: ResponseFacts;
    const started = now();
    const silence = watchSilence(endpoint, url, attempt);
    try {
      const response = await request(url, {
        method: call.method,
        headers,
        body: payload,
        dispatcher,
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
        signal: call.signal,
      });
      silence(true);
      // Scrubbed of the key as it is read: whatever is built from it (errors, traces, output) is too.
      facts = { endpoint, request: requestInfo, ...(await readHostAnswer(response, apiKey)) };
    } catch (error) {
      silence(false);
      if (call.signal?.aborted) throw new InterruptedError();
      const failed = networkErrorFrom(error, endpoint, apiKey, requestInfo, timeoutMs);
      const failure = await withSchemeChecked(url, failed, call.signal);
      trace(call, url, attempt, started, { status: null, code: failure.code, requestBody: payload });
      throw failure;
    }
    const bodies = { requestBody: payload, responseBody: facts.bodyText };
    if (facts.status < 200 || facts.status > 299) {
      const answered = apiErrorFromResponse(facts);
      // nginx answers http:// on its TLS port with a 400 page: a wrong scheme, not a bad request.
      const failure = answered.code === 'http_400' ? await withSchemeChecked(url, answered, call.signal) : answered;
      if (failure instanceof NetworkError) {
        trace(call, url, attempt, started, { status: null, code: failure.code, ...bodies });
        throw failure;
      }
      trace(call, url, attempt, started, { status: facts.status, code: failure.code, ...bodies });
      throw failure;
    }
    try {
      const body = parseBody(call.schema, facts, call.fastCheck);
      trace(call, url, attempt, started, { status: facts.status, code: null, ...bodies });
      return body;
    } catch (error) {
      trace(call, url, attempt, started, {
        status: facts.status,
        code: (error as CamrollError).code ?? 'contract_violation',
        ...bodies,
      });
      throw error;
    }
  }

  /**
   * The failure as it stands, or, when a probe of the port finds it speaks the other scheme,
   * a NetworkError that says so (never retried: src/client/network-codes.ts). The call's
   * signal ends the probe: Ctrl-C does not wait for it.
   */
  async function withSchemeChecked<E extends NetworkError | ApiError>(
    url: URL,
    failure: E,
    signal: AbortSignal | undefined,
  ): Promise<E | NetworkError> {
    const mismatch = await probeScheme(url, failure.code, signal);
    if (mismatch === null) return failure;
    return new NetworkError(
      mismatch,
      `${failure.request?.method ?? 'GET'} ${url.href} failed: ${describeMismatch(mismatch)}`,
      {
        cause: failure.cause ?? failure,
        request: failure.request,
      },
    );
  }

  async function send<S extends z.ZodType>(call: Call<S>): Promise<z.output<S>> {
    if (!apiKey && !call.anonymous) {
      throw new ConfigError('missing_api_key', 'no API key configured for this base URL');
    }
    const endpoint = `${call.method} ${call.path}`;
    let timeouts = 0;
    for (let attempt = 1; ; attempt += 1) {
      if (call.signal?.aborted) throw new InterruptedError();
      try {
        return await once(call, attempt);
      } catch (error) {
        if (error instanceof NetworkError && isTimeoutCode(error.code)) timeouts += 1;
        // The caller stopped while this attempt failed (a sync's outage stop is told of the
        // failure itself): a connection failure another attempt might have healed is an
        // interruption. One that cannot heal (a bad name, the wrong scheme) is kept, as is an
        // answer (a refused key): they say what to fix.
        if (call.signal?.aborted && error instanceof NetworkError && isTransientNetworkCode(error.code)) {
          throw new InterruptedError();
        }
        const decision = decideRetry({ attempt, error, policy, random, timeouts });
        if (!decision.retry) throw error;
        // Told once the wait is over and the retry certain: a wait cut short (Ctrl-C, the
        // host gone, another request's failure ending the sync) announces nothing.
        await sleep(decision.delayMs, call.signal);
        if (call.signal?.aborted) throw new InterruptedError();
        options.onRetry?.({ endpoint, attempt, delayMs: decision.delayMs, error: error as CamrollError });
      }
    }
  }

  async function events(userId: string, opts: EventsOptions = {}): Promise<EventsPage> {
    const query: Record<string, string> = {};
    if (opts.cursor !== undefined) query.cursor = opts.cursor;
    if (opts.limit !== undefined) query.limit = String(opts.limit);
    if (opts.includeMedia !== undefined) query.include_media = String(opts.includeMedia);
    return send({ method: 'GET', path: paths.events(userId), query, schema: EventsPage, signal: opts.signal });
  }

  async function* eventPages(userId: string, opts: Omit<EventsOptions, 'cursor'> = {}): AsyncGenerator<EventsPage> {
    const seen = new Set<string>();
    let cursor: string | undefined;
    for (;;) {
      const page = await events(userId, { ...opts, cursor });
      yield page;
      if (!page.has_more) return;
      // A cursor that is missing or comes round again would page forever.
      if (page.next_cursor === null || seen.has(page.next_cursor)) {
        throw new ContractViolationError(`GET ${paths.events(userId)} said has_more without a new next_cursor`, {
          details: { endpoint: `GET ${paths.events(userId)}` },
        });
      }
      seen.add(page.next_cursor);
      cursor = page.next_cursor;
    }
  }

  return {
    baseUrl,
    ping: (opts = {}) =>
      send({ method: 'GET', path: paths.ping(), schema: PingResult, anonymous: true, signal: opts.signal }),
    health: (opts = {}) => send({ method: 'GET', path: paths.health(), schema: HealthResult, signal: opts.signal }),
    createUser: (body, opts = {}) => {
      // Checked here, so a bad value is named by its member rather than dumped by the validator.
      const checked = UserCreateRequest.safeParse(body);
      if (!checked.success) {
        const issue = checked.error.issues[0];
        const where = issue && issue.path.length > 0 ? issue.path.join('.') : '(body)';
        return Promise.reject(
          new RequestError('invalid_request', `POST ${paths.users()}: ${where}: ${issue?.message ?? 'invalid'}`),
        );
      }
      return send({
        method: 'POST',
        path: paths.users(),
        body: checked.data,
        schema: UserCreateResponse,
        signal: opts.signal,
      });
    },
    ingest: (userId, media, opts = {}) => {
      if (media.length < MIN_BATCH_ITEMS || media.length > MAX_BATCH_ITEMS) {
        return Promise.reject(
          new RequestError(
            'invalid_batch_size',
            `a media batch holds ${MIN_BATCH_ITEMS} to ${MAX_BATCH_ITEMS} items, not ${media.length}`,
          ),
        );
      }
      return send({
        method: 'POST',
        path: paths.media(userId),
        body: { media },
        schema: IngestResponse,
        fastCheck: isWellFormedIngestResponse,
        signal: opts.signal,
      });
    },
    syncComplete: (userId, opts = {}) =>
      send({
        method: 'POST',
        path: paths.syncComplete(userId),
        body: {},
        schema: SyncCompleteResult,
        signal: opts.signal,
      }),
    events,
    eventPages,
    async *allEvents(userId, opts = {}) {
      for await (const page of eventPages(userId, opts)) yield* page.events;
    },
    stats: (userId, opts = {}) =>
      send({ method: 'GET', path: paths.stats(userId), schema: Stats, signal: opts.signal }),
    close: async () => {
      await ownDispatcher?.close();
    },
  };
}
