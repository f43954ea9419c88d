import type { FastifyInstance } from 'fastify';
import type { Event } from '../../contract/events.js';
import type { IngestResponse } from '../../contract/ingest.js';
import { SyncCompleteRequest, type SyncCompleteResponse } from '../../contract/service.js';
import type { ServiceDeps } from '../deps.js';
import { userEventView } from '../event-view.js';
import { evaluateBatch, type Evaluated } from '../ingest.js';
import { ServiceError } from '../service-error.js';
import { requireUser } from './users.js';

type UserParams = { Params: { userId: string } };

/** The matched events of a batch, each once, in the order their first item came. */
function matchedEventIds(accepted: readonly Evaluated[]): number[] {
  const ids = new Set<number>();
  for (const item of accepted) if (item.match.matched && item.match.event_id != null) ids.add(item.match.event_id);
  return [...ids];
}

/** POST /users/{id}/media and POST /users/{id}/sync-complete. */
export function registerMediaRoutes(app: FastifyInstance, deps: ServiceDeps): void {
  const { store, catalog } = deps;
  const startsOf = (eventId: number): number | null => catalog.events.get(eventId)?.startsAtMs ?? null;

  app.post<UserParams>('/users/:userId/media', async (request): Promise<IngestResponse> => {
    const user = await requireUser(deps, request);
    const batch = evaluateBatch(request.body, deps.matcher, catalog);
    const eventIds = matchedEventIds(batch.accepted);

    // One store transaction: matches, the derived per-event counts, last_sync_at and the
    // events read back move together, so no reader and no crash sees half a batch.
    const applied = await store.applyIngest(user.id, {
      items: batch.distinct,
      startsOf,
      nowMs: deps.clock(),
      readBack: eventIds,
    });
    const events: Event[] = [];
    for (const eventId of eventIds) {
      const view = userEventView(catalog, eventId, { media: applied.media.get(eventId) ?? [] });
      if (view) events.push(view);
    }
    const matches = batch.accepted.map((item) => item.match);
    return {
      accepted: matches.length,
      matched: matches.filter((match) => match.matched).length,
      rejected: batch.rejected,
      matches,
      events,
      last_sync_at: new Date(applied.lastSyncAtMs).toISOString(),
    };
  });

  app.post<UserParams>('/users/:userId/sync-complete', async (request): Promise<SyncCompleteResponse> => {
    const user = await requireUser(deps, request);
    if (request.body !== undefined && !SyncCompleteRequest.safeParse(request.body).success) {
      throw new ServiceError('invalid_request', 'sync-complete takes no body, or {}');
    }
    const lastSyncAtMs = await store.markSynced(user.id, deps.clock());
    return { has_synced: true, last_sync_at: new Date(lastSyncAtMs).toISOString() };
  });
}
