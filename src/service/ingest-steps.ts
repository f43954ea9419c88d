import type { ServiceErrorCode } from './service-error.js';

/** Where in Fastify's request lifecycle a step runs. */
export type LifecycleStage = 'onRequest' | 'parse' | 'preValidation' | 'preHandler' | 'handler';

/** Fastify runs a request through these stages in this order, whatever order the hooks were added in. */
export const LIFECYCLE_ORDER: readonly LifecycleStage[] = [
  'onRequest',
  'parse',
  'preValidation',
  'preHandler',
  'handler',
];

export interface IngestStep {
  name: string;
  stage: LifecycleStage;
  /** The module that implements it (under src/service/). */
  where: string;
  /** The codes it refuses a request with; the first step that refuses answers. */
  refuses: readonly ServiceErrorCode[];
  /** Why it stands where it does. */
  why: string;
}

/**
 * The order a POST /v1/users/{id}/media request goes through, written once. The steps are
 * Fastify hooks and the route handler spread over several modules, and Fastify orders them
 * by lifecycle stage, then by registration inside a stage: this table is that order, and
 * test/service/ingest-steps.test.ts holds the service to it (for every two neighbouring
 * steps, a request both would refuse gets the earlier one's answer). The other API routes
 * share the steps up to `body`, then run their own handler.
 */
export const INGEST_STEPS: readonly IngestStep[] = [
  {
    name: 'limits',
    stage: 'onRequest',
    where: 'load-limits.ts (installLoadLimits, capConnectionsPerAddress), errors-plugin.ts (clientErrorHandler)',
    refuses: ['invalid_request', 'request_header_too_large', 'request_timeout', 'service_unavailable'],
    why:
      'what HTTP itself requires (a Host, headers of bounded size, a request that arrives in time, its socket ' +
      'destroyed after a 408), and the connections capped (Node caps them all, each address gets at most its ' +
      'share: 503 and closed), checked before anything is queued',
  },
  {
    name: 'admission',
    stage: 'onRequest',
    where: 'load-limits.ts (installLoadLimits), admission.ts',
    refuses: ['service_unavailable'],
    why:
      'the bounded queue sheds with 503 before any work is spent on the request, a key check included; /ping and ' +
      '/health are never queued',
  },
  {
    name: 'key',
    stage: 'onRequest',
    where: 'app.ts (the v1 onRequest hook), keys.ts, auth-throttle.ts',
    refuses: ['invalid_api_key', 'rate_limited'],
    why:
      'before the body is read: a stranger cannot make the service read 8 MiB; a wrong key gets 401, later and ' +
      'later once an address guesses too often, and an address that has tried 30 wrong keys in the last minute ' +
      'gets 429 with Retry-After for any key, which is then not looked at',
  },
  {
    name: 'rate limit',
    stage: 'onRequest',
    where: "app.ts (@fastify/rate-limit, a route onRequest hook: after the v1 scope's key hook)",
    refuses: ['rate_limited'],
    why:
      'per key, so after the key; before the body is read, so a throttled request costs its headers only (no read, ' +
      'no parse, no matching); every authenticated request counts, whatever its body',
  },
  {
    name: 'body',
    stage: 'parse',
    where: 'app.ts (content-type parsers, BODY_LIMIT_BYTES)',
    refuses: ['unsupported_media_type', 'payload_too_large'],
    why: 'only application/json, at most 8 MiB; the ingest route takes the bytes as they are',
  },
  {
    name: 'plan',
    stage: 'preValidation',
    where: 'routes/media.ts (preValidation), ingest.ts (planIngest), ingest-threads.ts',
    refuses: ['invalid_request'],
    why:
      'the bytes are parsed and the batch matched (in an ingest thread under serve); bytes that are not JSON are ' +
      'refused here, as any unreadable body is, before the user lookup',
  },
  {
    name: 'user',
    stage: 'handler',
    where: 'routes/users.ts (requireUser)',
    refuses: ['user_not_found'],
    why: "the user's lookup in the partner's scope: the first read of the store",
  },
  {
    name: 'batch',
    stage: 'handler',
    where: 'routes/media.ts (planRefusal of a plan refused at the batch stage)',
    refuses: ['invalid_request', 'empty_batch', 'invalid_batch_size', 'invalid_media_item'],
    why: "the plan's verdict on the batch's shape, given once the user is known to exist (an unknown user is a 404)",
  },
  {
    name: 'store',
    stage: 'handler',
    where: 'routes/media.ts, store/ (applyIngest)',
    refuses: ['service_unavailable'],
    why: 'one transaction for the whole batch; a database that stays locked past the lock-retry budget is a 503',
  },
  {
    name: 'reply',
    stage: 'handler',
    where: 'routes/media.ts, ingest.ts (ingestReplyJson)',
    refuses: [],
    why: 'the answer, with the events read back in the same transaction',
  },
];
