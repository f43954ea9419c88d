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

/** POST /users/{id}/media and POST /users/{id}/sync-complete. */
export function registerMediaRoutes(app: FastifyInstance, deps: ServiceDeps): void {
  const { store, catalog } = deps;

  app.post<UserParams>('/users/:userId/media', async (request): Promise<IngestResponse> => {
    const user = requireUser(deps, request);
    const batch = evaluateBatch(request.body, deps.matcher, catalog);
    const distinct = new Map<string, Evaluated>();
    for (const item of batch.accepted) distinct.set(item.mediaId, item);

    // One transaction: matches, the derived per-event counts, last_sync_at and the
    // expanded events all move together, so no reader and no crash sees half a batch.
    return store.write(() => {
      const touched = new Map<number, number | null>();
      const startsOf = (eventId: number): number | null => catalog.events.get(eventId)?.startsAtMs ?? null;
      const unmatched: string[] = [];
      for (const item of distinct.values()) {
        if (item.stored) {
          const previous = store.matchedEventOf(user.id, item.mediaId);
          store.upsertMatch(user.id, item.stored);
          touched.set(item.stored.event_id, startsOf(item.stored.event_id));
          if (previous !== null && previous !== item.stored.event_id) touched.set(previous, startsOf(previous));
        } else {
          unmatched.push(item.mediaId);
        }
      }
      // A re-sent item that no longer matches drops its earlier match: the latest metadata
      // for an asset id is the truth, and unmatched items are not retained.
      for (const previous of store.removeMatches(user.id, unmatched)) touched.set(previous, startsOf(previous));
      for (const [eventId, startsAtMs] of touched) store.refreshUserEvent(user.id, eventId, startsAtMs);
      const lastSyncAtMs = store.touch(user.id, deps.clock(), false);

      const matches = batch.accepted.map((item) => item.match);
      const eventIds: number[] = [];
      const seen = new Set<number>();
      for (const match of matches) {
        if (!match.matched || match.event_id == null || seen.has(match.event_id)) continue;
        seen.add(match.event_id);
        eventIds.push(match.event_id);
      }
      // Each event complete (earlier batches included), all read in one query.
      const media = store.eventsMedia(user.id, eventIds);
      const events: Event[] = [];
      for (const eventId of eventIds) {
        const view = userEventView(catalog, eventId, { media: media.get(eventId) ?? [] });
        if (view) events.push(view);
      }
      return {
        accepted: matches.length,
        matched: matches.filter((match) => match.matched).length,
        rejected: batch.rejected,
        matches,
        events,
        last_sync_at: new Date(lastSyncAtMs).toISOString(),
      };
    });
  });

  app.post<UserParams>('/users/:userId/sync-complete', async (request): Promise<SyncCompleteResponse> => {
    const user = requireUser(deps, request);
    if (request.body !== undefined && !SyncCompleteRequest.safeParse(request.body).success) {
      throw new ServiceError('invalid_request', 'sync-complete takes no body, or {}');
    }
    const lastSyncAtMs = store.write(() => store.touch(user.id, deps.clock(), true));
    return { has_synced: true, last_sync_at: new Date(lastSyncAtMs).toISOString() };
  });
}
