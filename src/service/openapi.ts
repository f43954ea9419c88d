import { OpenAPIRegistry, OpenApiGeneratorV31, zodToOpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';
import { ErrorEnvelope } from '../contract/errors.js';
import { Event, EventMedia, EVENTS_PAGE_DEFAULT, EVENTS_PAGE_MAX, EventsPage, Performer, Venue } from '../contract/events.js';
import { IngestResponse } from '../contract/ingest.js';
import { MAX_BATCH_ITEMS, MediaMatch, MediaMetadata, RejectedMedia } from '../contract/media.js';
import { API_KEY_HEADER, CONTRACT_VERSION, VERSION_PREFIX } from '../contract/paths.js';
import { HealthResponse, PingResponse, RateLimitPolicy, SyncCompleteRequest, SyncCompleteResponse } from '../contract/service.js';
import { Stats, UniqueVenue } from '../contract/stats.js';
import { Address, UserCreateRequest, UserCreateResponse } from '../contract/users.js';

const json = <T extends z.ZodType>(schema: T) => ({ 'application/json': { schema } });

/**
 * The partner interface as an OpenAPI 3.1 document, generated from the same zod schemas the
 * service validates with and the client parses with (never written by hand).
 */
export function buildOpenApiDocument(): Record<string, unknown> {
  const registry = new OpenAPIRegistry();
  const apiKey = registry.registerComponent('securitySchemes', 'PartnerApiKey', {
    type: 'apiKey',
    in: 'header',
    name: API_KEY_HEADER.toUpperCase(),
  });
  const security = [{ [apiKey.name]: [] }];

  // Name the contract's own schema objects in the generator's metadata registry, so every
  // use (nested ones too) becomes a $ref. `registry.register` would need `.openapi()`, which
  // zod 4 only gives schemas built after extendZodWithOpenApi: the contract's are built first.
  for (const [name, schema] of Object.entries({
    ErrorEnvelope, Venue, Performer, EventMedia, Event, EventsPage, MediaMetadata, RejectedMedia,
    MediaMatch, IngestResponse, Address, UserCreateRequest, UserCreateResponse, Stats, UniqueVenue,
    PingResponse, HealthResponse, RateLimitPolicy, SyncCompleteResponse,
  }) as Array<[string, z.ZodType]>) {
    if (!zodToOpenAPIRegistry.has(schema)) zodToOpenAPIRegistry.add(schema, { _internal: { refId: name } });
  }

  const errors = (...statuses: number[]) =>
    Object.fromEntries(statuses.map((status) => [status, { description: 'Error envelope', content: json(ErrorEnvelope) }]));
  const common = errors(401, 429, 500);
  const userParams = z.object({ user_id: z.uuid() });
  const IngestBody = z.object({ media: z.array(MediaMetadata).min(1).max(MAX_BATCH_ITEMS) });
  const EventsQueryDoc = z.object({
    limit: z.number().int().min(1).max(EVENTS_PAGE_MAX).optional().meta({ description: `Page size, default ${EVENTS_PAGE_DEFAULT}` }),
    cursor: z.string().optional().meta({ description: 'Opaque; next_cursor of the previous page' }),
    include_media: z.enum(['true', 'false', '1', '0']).optional().meta({ description: 'false omits media' }),
  });

  registry.registerPath({
    method: 'get', path: '/ping', summary: 'Proves the base URL; no key, never rate limited',
    responses: { 200: { description: 'Up', content: json(PingResponse) } },
  });
  registry.registerPath({
    method: 'get', path: '/health', security, summary: "The key's partner, environment and rate-limit policy",
    responses: { 200: { description: 'Up', content: json(HealthResponse) }, ...errors(401, 500) },
  });
  registry.registerPath({
    method: 'post', path: '/users', security, summary: 'Create a user, idempotent on e-mail within the partner',
    request: { body: { content: json(UserCreateRequest) } },
    responses: { 201: { description: 'New or existing profile', content: json(UserCreateResponse) }, ...errors(400, 415), ...common },
  });
  registry.registerPath({
    method: 'post', path: '/users/{user_id}/media', security, summary: 'Send a batch of media metadata; matches come back inline',
    request: { params: userParams, body: { content: json(IngestBody) } },
    responses: { 200: { description: 'Batch result', content: json(IngestResponse) }, ...errors(400, 404, 413, 415), ...common },
  });
  registry.registerPath({
    method: 'post', path: '/users/{user_id}/sync-complete', security, summary: 'A library scan finished',
    request: { params: userParams, body: { required: false, content: json(SyncCompleteRequest) } },
    responses: { 200: { description: 'Marked', content: json(SyncCompleteResponse) }, ...errors(400, 404, 415), ...common },
  });
  registry.registerPath({
    method: 'get', path: '/users/{user_id}/events', security, summary: 'Matched event history, newest first',
    request: { params: userParams, query: EventsQueryDoc },
    responses: { 200: { description: 'One page', content: json(EventsPage) }, ...errors(400, 404), ...common },
  });
  registry.registerPath({
    method: 'get', path: '/users/{user_id}/stats', security, summary: 'Profile statistics',
    request: { params: userParams },
    responses: { 200: { description: 'Stats', content: json(Stats) }, ...errors(404), ...common },
  });

  const document = new OpenApiGeneratorV31(registry.definitions).generateDocument({
    openapi: '3.1.0',
    info: {
      title: 'Camera-roll event matching: partner interface',
      version: CONTRACT_VERSION,
      description: `Paths are relative to the base URL, which carries the version prefix (${VERSION_PREFIX}). Authenticate with the ${API_KEY_HEADER} header.`,
    },
    servers: [{ url: `http://127.0.0.1:8787${VERSION_PREFIX}`, description: 'camroll serve (default address)' }],
  });
  return document as unknown as Record<string, unknown>;
}
