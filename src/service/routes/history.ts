import type { FastifyInstance } from 'fastify';
import { EVENTS_PAGE_DEFAULT, EventsQuery, type Event, type EventsPage } from '../../contract/events.js';
import type { Stats } from '../../contract/stats.js';
import type { ServiceDeps } from '../deps.js';
import { shownEvent, userEventView } from '../event-view.js';
import { ServiceError } from '../service-error.js';
import { computeStats } from '../stats/index.js';
import { requireUser } from './users.js';

type UserParams = { Params: { userId: string }; Querystring: Record<string, unknown> };

/** GET /users/{id}/events (keyset paging, newest first) and GET /users/{id}/stats. */
export function registerHistoryRoutes(app: FastifyInstance, deps: ServiceDeps): void {
  const { store, catalog } = deps;
  const shown = (eventId: number): boolean => shownEvent(catalog, eventId) !== null;

  app.get<UserParams>('/users/:userId/events', async (request): Promise<EventsPage> => {
    const user = await requireUser(deps, request);
    const query = { ...request.query };
    // An empty cursor is what a client sends for "no cursor yet".
    if (query.cursor === '') delete query.cursor;
    const parsed = EventsQuery.safeParse(query);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new ServiceError('invalid_request', `invalid ${issue?.path.join('.') || 'query'}: ${issue?.message ?? ''}`);
    }
    const limit = parsed.data.limit ?? EVENTS_PAGE_DEFAULT;
    const includeMedia = parsed.data.include_media !== 'false' && parsed.data.include_media !== '0';
    const after = parsed.data.cursor === undefined ? null : deps.cursors.decode(user.id, parsed.data.cursor);

    const page = await store.eventsPage(user.id, { after, limit, includeMedia, shown });
    const events: Event[] = [];
    for (const row of page.rows) {
      const content = page.media ? { media: page.media.get(row.event_id) ?? [] } : { mediaCount: row.media_count };
      const view = userEventView(catalog, row.event_id, content);
      if (view) events.push(view);
    }
    const last = page.rows[page.rows.length - 1];
    return {
      events,
      has_more: page.hasMore,
      next_cursor:
        page.hasMore && last
          ? deps.cursors.encode(user.id, { startsAtMs: last.starts_at_ms, eventId: last.event_id })
          : null,
      total: page.total,
    };
  });

  app.get<UserParams>('/users/:userId/stats', async (request): Promise<Stats> => {
    const user = await requireUser(deps, request);
    // One snapshot for the event ids and the sync markers: stats agree with /events.
    const history = await store.history(user.id);
    return computeStats({
      eventIds: history.eventIds,
      catalog,
      hasSynced: history.hasSynced,
      lastSyncAt: history.lastSyncAtMs === null ? null : new Date(history.lastSyncAtMs).toISOString(),
    });
  });
}
