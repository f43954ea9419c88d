import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { parseCatalog } from '../../../src/service/catalog/index.js';
import { ACME, ANCHOR_CATALOG_JSON, createUser, itemAt, makeApp, tempDir, type TestApp } from '../helpers.js';

/** The anchor catalog with some events hidden: what a later catalog file may do to stored matches. */
function catalogHiding(ids: number[]) {
  return parseCatalog({
    ...ANCHOR_CATALOG_JSON,
    events: ANCHOR_CATALOG_JSON.events.map((event) => (ids.includes(event.id) ? { ...event, hidden: true } : event)),
  });
}

describe('events the current catalog hides', () => {
  const open: TestApp[] = [];
  const dir = tempDir();
  afterAll(() => dir.cleanup());
  afterEach(async () => {
    while (open.length > 0) await open.pop()!.close();
  });

  it('count in neither the page total nor has_more, and agree with stats', async () => {
    const dbPath = join(dir.dir, 'visibility.db');
    const first = await makeApp({ dbPath });
    open.push(first);
    const userId = await createUser(first.app, ACME, 'hidden@example.com');
    const res = await first.app.inject({
      method: 'POST',
      url: `/v1/users/${userId}/media`,
      headers: { 'x-partner-api-key': ACME },
      payload: {
        media: [
          itemAt('e1', 1, '2024-07-13T00:00:00Z', 30), // event 1, newest
          itemAt('e3', 3, '2024-03-30T20:00:00Z', 30), // event 3
          itemAt('e2', 2, '2023-12-09T08:30:00Z', 30), // event 2, oldest
        ],
      },
    });
    expect(res.json()).toMatchObject({ matched: 3 });
    await first.close();
    open.pop();

    // The same database under a catalog that now hides events 3 and 2.
    const later = await makeApp({ dbPath, catalog: catalogHiding([3, 2]) });
    open.push(later);
    const get = async (url: string) =>
      (
        await later.app.inject({
          method: 'GET',
          url: `/v1/users/${userId}${url}`,
          headers: { 'x-partner-api-key': ACME },
        })
      ).json();
    const page = await get('/events?limit=1');
    expect(page.events.map((e: { id: number }) => e.id)).toEqual([1]);
    expect(page.total).toBe(1);
    expect(page.has_more).toBe(false);
    expect(page.next_cursor).toBeNull();
    expect((await get('/stats')).total_events).toBe(1);

    // Hiding only the middle one: paging skips it, and the last page says no more.
    await later.close();
    open.pop();
    const middle = await makeApp({ dbPath, catalog: catalogHiding([3]) });
    open.push(middle);
    const call = async (url: string) =>
      (
        await middle.app.inject({
          method: 'GET',
          url: `/v1/users/${userId}${url}`,
          headers: { 'x-partner-api-key': ACME },
        })
      ).json();
    const one = await call('/events?limit=1');
    expect(one).toMatchObject({ total: 2, has_more: true });
    const two = await call(`/events?limit=1&cursor=${one.next_cursor}`);
    expect(two.events.map((e: { id: number }) => e.id)).toEqual([2]);
    expect(two).toMatchObject({ total: 2, has_more: false, next_cursor: null });
    expect((await call('/stats')).total_events).toBe(2);
  });
});
