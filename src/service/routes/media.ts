import type { FastifyInstance } from 'fastify';
import type { Event } from '../../contract/events.js';
import { SyncCompleteRequest, type SyncCompleteResponse } from '../../contract/service.js';
import type { ServiceDeps } from '../deps.js';
import { userEventView } from '../event-view.js';
import { ingestReplyJson, planRefusal } from '../ingest.js';
import { ServiceError } from '../service-error.js';
import { requireUser } from './users.js';

type UserParams = { Params: { userId: string } };

/** POST /users/{id}/media and POST /users/{id}/sync-complete. */
export function registerMediaRoutes(app: FastifyInstance, deps: ServiceDeps): void {
  const { store, catalog } = deps;
  const startsOf = (eventId: number): number | null => catalog.events.get(eventId)?.startsAtMs ?? null;

  // The body arrives as bytes and is planned (parsed, checked, matched) in an ingest thread
  // when there is one. Planning starts before the handler, so a body that is not JSON is
  // refused where any unreadable body is: before the rate limit and the user lookup. The
  // steps `plan`, `user`, `batch`, `store` and `reply` of INGEST_STEPS (ingest-steps.ts).
  app.post<UserParams>(
    '/users/:userId/media',
    {
      config: { rawJsonBody: true },
      preValidation: async (request) => {
        const planned = await deps.ingest.plan(request.body as Buffer | undefined);
        if (!planned.ok && planned.stage === 'body') throw planRefusal(planned.error);
        request.ingestPlan = planned;
      },
    },
    async (request, reply) => {
      const user = await requireUser(deps, request);
      const planned = request.ingestPlan!; // set in preValidation, which every request passes
      if (!planned.ok) throw planRefusal(planned.error);
      const { plan } = planned;

      // One store transaction: matches, the derived per-event counts, last_sync_at and the
      // events read back move together, so no reader and no crash sees half a batch.
      const applied = await store.applyIngest(user.id, {
        items: plan.items,
        startsOf,
        nowMs: deps.clock(),
        readBack: plan.eventIds,
      });
      const events: Event[] = [];
      for (const eventId of plan.eventIds) {
        const view = userEventView(catalog, eventId, { media: applied.media.get(eventId) ?? [] });
        if (view) events.push(view);
      }
      const answer = ingestReplyJson(plan, events, new Date(applied.lastSyncAtMs).toISOString());
      return reply.type('application/json; charset=utf-8').send(answer);
    },
  );

  app.post<UserParams>('/users/:userId/sync-complete', async (request): Promise<SyncCompleteResponse> => {
    const user = await requireUser(deps, request);
    if (request.body !== undefined && !SyncCompleteRequest.safeParse(request.body).success) {
      throw new ServiceError('invalid_request', 'sync-complete takes no body, or {}');
    }
    const lastSyncAtMs = await store.markSynced(user.id, deps.clock());
    return { has_synced: true, last_sync_at: new Date(lastSyncAtMs).toISOString() };
  });
}
