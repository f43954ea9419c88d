import type { ServiceErrorCode } from './service-error.js';

/** Reason phrases for the statuses the service answers with. */
export const STATUS_TEXT: Record<number, string> = {
  400: 'Bad request',
  401: 'Unauthorized',
  404: 'Not found',
  405: 'Method not allowed',
  408: 'Request timeout',
  413: 'Payload too large',
  415: 'Unsupported media type',
  429: 'Too many requests',
  431: 'Request header fields too large',
  500: 'Internal error',
  503: 'Service unavailable',
};

/** One operation of the partner interface, as the service answers it. */
export interface Operation {
  method: 'get' | 'post';
  /** Relative to the base URL (which carries /v1). */
  path: string;
  operationId: string;
  tag: 'system' | 'users' | 'media' | 'history';
  summary: string;
  description: string;
  /** No key needed. */
  open?: boolean;
  body?: { required: boolean; description: string; schema: { $ref: string } };
  success: {
    status: 200 | 201;
    description: string;
    schema:
      | 'PingResponse'
      | 'HealthResponse'
      | 'UserCreateResponse'
      | 'IngestResponse'
      | 'SyncCompleteResponse'
      | 'EventsPage'
      | 'Stats';
  };
  /** Every error code the operation can answer with; statuses come from the codes. */
  errors: readonly ServiceErrorCode[];
}

const schema = (name: string) => ({ $ref: `#/components/schemas/${name}` });

// Any request can be malformed HTTP, lack Host, time out, carry oversized headers, or come on
// a connection past its address's share of the server's connections (503, then closed).
const ANY: ServiceErrorCode[] = [
  'invalid_request',
  'request_timeout',
  'request_header_too_large',
  'service_unavailable',
  'internal_error',
];
// Keyed requests: a missing or wrong key is 401 (slowed down after a few wrong keys from one
// address); an address that has tried 30 wrong keys in the last minute gets 429 for any key,
// which is then not looked at (GET /health included: it is exempt from the per-key limit only).
const KEYED: ServiceErrorCode[] = [...ANY, 'invalid_api_key', 'rate_limited'];
// API routes go through the bounded queue (503, listed in ANY) and the per-key rate limit (429).
const API: ServiceErrorCode[] = KEYED;
// A body: not JSON (400 invalid_request), not application/json (415), over 8 MiB (413).
const WITH_BODY: ServiceErrorCode[] = ['unsupported_media_type', 'payload_too_large'];

/** The operations, in the contract's order. The service's routes and this table are tested against each other. */
export const OPERATIONS: readonly Operation[] = [
  {
    method: 'get',
    path: '/ping',
    operationId: 'ping',
    tag: 'system',
    open: true,
    summary: 'Prove the base URL',
    description: 'Needs no key, is never rate limited or shed, touches no user data.',
    success: { status: 200, description: 'The service answers.', schema: 'PingResponse' },
    errors: ANY,
  },
  {
    method: 'get',
    path: '/health',
    operationId: 'getHealth',
    tag: 'system',
    summary: "The key's partner, environment and rate-limit policy",
    description:
      'Not rate limited per key and never shed, so it answers while the caller is throttled. Touches no user data. ' +
      'An address that has tried 30 wrong keys in the last minute gets 429 for any key until a minute has passed.',
    success: { status: 200, description: 'The key in use.', schema: 'HealthResponse' },
    errors: KEYED,
  },
  {
    method: 'post',
    path: '/users',
    operationId: 'createUser',
    tag: 'users',
    summary: 'Create a user, idempotent on e-mail within the partner',
    description:
      'Both a new and an existing profile answer 201; `existing` tells them apart. The e-mail is trimmed and ' +
      'compared case-insensitively; ' +
      'addresses as RFC 5321/6531 accept them (UTF-8 local parts, internationalised domains). A phone number in use ' +
      'is silently ignored.',
    body: { required: true, description: 'The user to create.', schema: schema('UserCreateRequest') },
    success: { status: 201, description: 'The new or existing profile.', schema: 'UserCreateResponse' },
    errors: [...API, ...WITH_BODY, 'invalid_email'],
  },
  {
    method: 'post',
    path: '/users/{user_id}/media',
    operationId: 'ingestMedia',
    tag: 'media',
    summary: 'Send a batch of media metadata; matches come back inline',
    description:
      'Per-item problems never fail the request: such items come back in `rejected`. Re-sending a batch is safe. ' +
      'More than 200 items is 413 invalid_batch_size; an item that is not an object with a non-empty string id is ' +
      '400 invalid_media_item.',
    body: {
      required: true,
      description: 'One batch: 1 to 200 items, 50 to 200 recommended.',
      schema: schema('IngestRequest'),
    },
    success: { status: 200, description: 'The batch result.', schema: 'IngestResponse' },
    errors: [...API, ...WITH_BODY, 'user_not_found', 'empty_batch', 'invalid_media_item', 'invalid_batch_size'],
  },
  {
    method: 'post',
    path: '/users/{user_id}/sync-complete',
    operationId: 'completeSync',
    tag: 'media',
    summary: 'Tell the service a library scan finished',
    description: 'Idempotent. Sets `has_synced` and advances `last_sync_at`. Takes no body, or `{}`.',
    body: { required: false, description: 'Nothing, or an empty object.', schema: schema('SyncCompleteRequest') },
    success: { status: 200, description: 'The sync markers.', schema: 'SyncCompleteResponse' },
    errors: [...API, ...WITH_BODY, 'user_not_found'],
  },
  {
    method: 'get',
    path: '/users/{user_id}/events',
    operationId: 'listEvents',
    tag: 'history',
    summary: 'Matched event history, newest first',
    description:
      'Keyset paging: follow `next_cursor` while `has_more` is true. Hidden and unlicensed events never appear.',
    success: { status: 200, description: 'One page.', schema: 'EventsPage' },
    errors: [...API, 'user_not_found', 'invalid_cursor'],
  },
  {
    method: 'get',
    path: '/users/{user_id}/stats',
    operationId: 'getStats',
    tag: 'history',
    summary: 'Profile statistics',
    description:
      'Recomputed as media is ingested; also carries `has_synced` and `last_sync_at` to choose a full or an ' +
      'incremental scan.',
    success: { status: 200, description: 'The statistics.', schema: 'Stats' },
    errors: [...API, 'user_not_found'],
  },
];
