import { z } from 'zod';
import { ErrorEnvelope } from '../contract/errors.js';
import {
  Event,
  EventMedia,
  EVENTS_PAGE_DEFAULT,
  EVENTS_PAGE_MAX,
  EventsPage,
  LocalDateTime,
  Performer,
  Venue,
} from '../contract/events.js';
import { IngestResponse } from '../contract/ingest.js';
import {
  MAX_ASSET_ID_LENGTH,
  MAX_BATCH_ITEMS,
  MAX_THUMBNAIL_URL_LENGTH,
  MediaMatch,
  MediaMetadata,
  MediaType,
  RejectedMedia,
} from '../contract/media.js';
import { API_KEY_HEADER, CONTRACT_VERSION, VERSION_PREFIX } from '../contract/paths.js';
import {
  HealthResponse,
  PingResponse,
  RateLimitPolicy,
  SyncCompleteRequest,
  SyncCompleteResponse,
} from '../contract/service.js';
import { Stats, UniqueVenue } from '../contract/stats.js';
import { Address, PROFILE_MAX_LENGTH, UserCreateRequest, UserCreateResponse } from '../contract/users.js';
import { MAX_EMAIL_OCTETS } from '../rules/email.js';
import { OPERATIONS, STATUS_TEXT, type Operation } from './openapi-operations.js';
import { ERROR_STATUS } from '../contract/errors.js';
import { SERVICE_ONLY_STATUS, statusOf, type ServiceErrorCode } from './service-error.js';

type Json = Record<string, unknown>;

/** Every code the service answers with: the contract's published ones, then its own. */
const KNOWN_CODES = [...Object.keys(ERROR_STATUS), ...Object.keys(SERVICE_ONLY_STATUS)];

/** The contract's named schemas: each becomes a component and every use of it a $ref. */
const COMPONENTS = {
  ErrorEnvelope,
  Venue,
  Performer,
  EventMedia,
  Event,
  EventsPage,
  MediaMetadata,
  RejectedMedia,
  MediaMatch,
  IngestResponse,
  Address,
  UserCreateRequest,
  UserCreateResponse,
  Stats,
  UniqueVenue,
  PingResponse,
  HealthResponse,
  RateLimitPolicy,
  SyncCompleteRequest,
  SyncCompleteResponse,
} satisfies Record<string, z.ZodType>;

/** What JSON Schema cannot say about a few members (zod checks them in code). */
function annotate(schema: z.ZodType, json: Json): void {
  if (schema === LocalDateTime) {
    // Local wall-clock time: an RFC 3339 date-time needs an offset, so no `format` here.
    delete json.format;
    json.description =
      'Local date and time at the venue, ISO 8601 with no offset (e.g. 2024-07-12T20:00:00). Never converted.';
    json.examples = ['2024-07-12T20:00:00'];
  } else if (schema === MediaType) {
    json.default = 'photo';
  } else if (schema === UserCreateRequest.shape.email) {
    // RFC 6531 addresses (UTF-8 local parts, internationalised domains) are accepted: not `email`.
    json.format = 'idn-email';
    json.description =
      'The identity key within the partner: trimmed, compared case-insensitively (Unicode NFC). ' +
      `At most ${MAX_EMAIL_OCTETS} octets; anything else is 400 invalid_email.`;
  } else if (schema === ErrorEnvelope.shape.error.shape.code) {
    json.description =
      'Stable and machine-readable, and open: a client handles a code it does not know by the HTTP status. ' +
      `Known codes: ${KNOWN_CODES.join(', ')}.`;
  } else if (schema === MediaMetadata.shape.id) {
    json.description =
      `The partner's asset id, echoed unchanged; at most ${MAX_ASSET_ID_LENGTH} characters. An id ` +
      `holding a lone UTF-16 surrogate (no UTF-8 form) is rejected as \`invalid\`.`;
  }
  // zod's safe-integer bounds say nothing a client needs.
  if (json.minimum === Number.MIN_SAFE_INTEGER) delete json.minimum;
  if (json.maximum === Number.MAX_SAFE_INTEGER) delete json.maximum;
}

/** The components' JSON Schemas (2020-12, which OpenAPI 3.1 uses), refs between them included. */
function componentSchemas(): Record<string, Json> {
  const registry = z.registry<{ id: string }>();
  for (const [id, schema] of Object.entries(COMPONENTS)) registry.add(schema as z.ZodType, { id });
  const { schemas } = z.toJSONSchema(registry, {
    target: 'draft-2020-12',
    // Requests are documented as sent (a thumbnail's transform runs after), responses have none.
    io: 'input',
    uri: (id) => `#/components/schemas/${id}`,
    override: (ctx) => annotate(ctx.zodSchema as unknown as z.ZodType, ctx.jsonSchema as Json),
  });
  const out: Record<string, Json> = {};
  for (const [id, schema] of Object.entries(schemas)) {
    const { $schema: _s, $id: _i, ...rest } = schema as Json;
    out[id] = rest;
  }
  const thumbnail =
    `Any string up to ${MAX_THUMBNAIL_URL_LENGTH} characters, stored and echoed verbatim; never ` +
    `fetched, validated or served. A longer one (or one with a lone UTF-16 surrogate) is dropped, never the item.`;
  setDescription(out.MediaMetadata, 'thumbnail_url', thumbnail);
  setDescription(out.EventMedia, 'thumbnail_url', 'The thumbnail as submitted, verbatim. Absent when none was sent.');
  setDescription(
    out.UserCreateRequest,
    'phone_number',
    'Stored when no other profile of the partner uses it. Never makes the call fail: one in use, one that is ' +
      `not a string, or one over ${PROFILE_MAX_LENGTH.phone_number} characters is ignored.`,
  );
  return out;
}

function setDescription(schema: Json | undefined, member: string, description: string): void {
  const properties = schema?.properties as Record<string, Json> | undefined;
  if (properties?.[member]) properties[member].description = description;
}

const RETRY_AFTER = {
  description: 'Whole seconds to wait before retrying.',
  required: true,
  schema: { type: 'integer', minimum: 1 },
};

/**
 * One response per status. Its `error.code` lists the codes the operation answers with, and
 * stays open to others (`anyOf` the known enum or any string): the contract tells clients to
 * handle an unknown code by its status, so a generated client or a validating proxy must not
 * refuse a code added later. The first branch is what the service is tested against.
 */
export function errorResponses(codes: readonly ServiceErrorCode[]): Record<string, Json> {
  const byStatus = new Map<number, ServiceErrorCode[]>();
  for (const code of codes) byStatus.set(statusOf(code), [...(byStatus.get(statusOf(code)) ?? []), code]);
  const responses: Record<string, Json> = {};
  for (const [status, group] of [...byStatus].sort(([a], [b]) => a - b)) {
    const response: Json = {
      description: `${STATUS_TEXT[status] ?? 'Error'}: ${group.join(', ')}.`,
      content: {
        'application/json': {
          schema: {
            allOf: [
              { $ref: '#/components/schemas/ErrorEnvelope' },
              { type: 'object', properties: { error: { type: 'object', properties: { code: openCode(group) } } } },
            ],
          },
        },
      },
    };
    if (status === 429 || status === 503) response.headers = { 'Retry-After': RETRY_AFTER };
    if (status === 405)
      response.headers = {
        Allow: { description: 'The methods the path takes.', required: true, schema: { type: 'string' } },
      };
    responses[String(status)] = response;
  }
  return responses;
}

/** A string that is one of `known`, or any other code a later service may add. */
function openCode(known: readonly string[]): Json {
  return {
    description: `Known for this status: ${known.join(', ')}. Any other code: handle it by the status.`,
    anyOf: [{ type: 'string', enum: [...known] }, { type: 'string' }],
  };
}

const ref = (name: keyof typeof COMPONENTS) => ({ $ref: `#/components/schemas/${name}` });

function operationObject(op: Operation): Json {
  const parameters: Json[] = [];
  if (op.path.includes('{user_id}')) {
    parameters.push({
      name: 'user_id',
      in: 'path',
      required: true,
      schema: { type: 'string', format: 'uuid' },
      description: 'The id POST /users returned. Any other value, under this key, is 404 user_not_found.',
    });
  }
  if (op.operationId === 'listEvents') {
    parameters.push(
      {
        name: 'limit',
        in: 'query',
        required: false,
        description: `Events per page, 1 to ${EVENTS_PAGE_MAX}.`,
        schema: { type: 'integer', minimum: 1, maximum: EVENTS_PAGE_MAX, default: EVENTS_PAGE_DEFAULT },
      },
      {
        name: 'cursor',
        in: 'query',
        required: false,
        description: 'Opaque: next_cursor of the previous page. Empty means the first page.',
        schema: { type: 'string' },
      },
      {
        name: 'include_media',
        in: 'query',
        required: false,
        description:
          "`false` omits each event's media (absent, not null). " +
          'Written `true` or `false`; `1` and `0` are accepted too.',
        schema: { type: 'boolean', default: true },
      },
    );
  }
  const operation: Json = {
    operationId: op.operationId,
    tags: [op.tag],
    summary: op.summary,
    description: op.description,
  };
  if (parameters.length > 0) operation.parameters = parameters;
  if (op.body) {
    operation.requestBody = {
      required: op.body.required,
      description: op.body.description,
      content: { 'application/json': { schema: op.body.schema } },
    };
  }
  operation.security = op.open ? [] : [{ PartnerApiKey: [] }];
  operation.responses = {
    [String(op.success.status)]: {
      description: op.success.description,
      content: { 'application/json': { schema: ref(op.success.schema) } },
    },
    ...errorResponses(op.errors),
  };
  return operation;
}

/**
 * The partner interface as an OpenAPI 3.1 document, generated from the same zod schemas the
 * service validates with and the client parses with, and from the operation table the
 * service's statuses come from (never written by hand).
 */
export function buildOpenApiDocument(): Json {
  const paths: Record<string, Json> = {};
  for (const op of OPERATIONS) paths[op.path] = { ...(paths[op.path] ?? {}), [op.method]: operationObject(op) };
  const schemas = componentSchemas();
  schemas.IngestRequest = {
    type: 'object',
    required: ['media'],
    properties: { media: { type: 'array', minItems: 1, maxItems: MAX_BATCH_ITEMS, items: ref('MediaMetadata') } },
  };
  return {
    openapi: '3.1.0',
    info: {
      title: 'Camera-roll event matching: partner interface',
      version: CONTRACT_VERSION,
      description:
        `Paths are relative to the base URL, which carries the version prefix (${VERSION_PREFIX}). Every operation ` +
        `but GET /ping needs the ${API_KEY_HEADER.toUpperCase()} header. ` +
        'Every failure has the error envelope; clients branch on error.code and handle an unknown code by its ' +
        'status. ' +
        'On any path: 404 not_found (unknown path), 405 method_not_allowed (known path, other method; with Allow), ' +
        '400 invalid_request (malformed HTTP, or HTTP/1.1 without Host), 408 request_timeout, 431 ' +
        'request_header_too_large. ' +
        'Service-only codes beyond the published table: payload_too_large (413, body over 8 MiB), ' +
        'request_header_too_large (431), request_timeout (408), service_unavailable (503 with Retry-After: the ' +
        'request was shed under load).',
      // The team that runs this service; a deployment that publishes the document adds its own url or email.
      contact: { name: 'camroll maintainers' },
      license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
    },
    servers: [{ url: `http://127.0.0.1:8787${VERSION_PREFIX}`, description: 'camroll serve (default address)' }],
    tags: [
      { name: 'system', description: 'Reachability and the key in use; never rate limited or shed.' },
      { name: 'users', description: 'Service users, one per opted-in partner user.' },
      { name: 'media', description: 'Media metadata batches and scan completion.' },
      { name: 'history', description: 'Matched events and profile statistics.' },
    ],
    paths,
    components: {
      schemas,
      securitySchemes: {
        PartnerApiKey: {
          type: 'apiKey',
          in: 'header',
          name: API_KEY_HEADER.toUpperCase(),
          description: 'The partner key; a server-side secret.',
        },
      },
    },
  };
}
