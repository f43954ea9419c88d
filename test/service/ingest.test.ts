import { describe, expect, it } from 'vitest';
import { IngestResponse } from '../../src/contract/ingest.js';
import { ingestReplyJson, planIngest } from '../../src/service/ingest.js';
import { parseJsonBody } from '../../src/service/json-body.js';
import { createMatcher } from '../../src/service/matching/index.js';
import { anchorCatalog, itemAt } from './helpers.js';

const matcher = createMatcher(anchorCatalog());
const EVENT1 = '2024-07-13T00:00:00Z';
const bytes = (value: unknown) => Buffer.from(typeof value === 'string' ? value : JSON.stringify(value));

describe('planIngest', () => {
  it('plans what the store applies and what the answer says', () => {
    const planned = planIngest(
      bytes({
        media: [
          itemAt('a', 1, EVENT1),
          { id: 'far', taken_at: EVENT1, latitude: 0, longitude: 0 },
          { id: 'x' },
          itemAt('a', 1, EVENT1, 5),
        ],
      }),
      matcher,
    );
    if (!planned.ok) throw new Error('expected a plan');
    const { plan } = planned;
    expect(plan.accepted).toBe(3);
    expect(plan.matched).toBe(2);
    expect(plan.rejected).toEqual([{ id: 'x', reason: 'missing_coordinates' }]);
    expect(plan.eventIds).toEqual([1]);
    // Each id once, the last copy deciding; `far` drops any earlier match.
    expect(plan.items.map((item) => [item.mediaId, item.stored?.event_id ?? null])).toEqual([
      ['a', 1],
      ['far', null],
    ]);
    expect(plan.items[0]!.stored?.taken_at).toBe('2024-07-13T00:05:00.000Z');
    expect(JSON.parse(plan.matchesJson)).toEqual([
      { media_id: 'a', matched: true, event_id: 1, venue_id: null },
      { media_id: 'far', matched: false, event_id: null, venue_id: null },
      { media_id: 'a', matched: true, event_id: 1, venue_id: null },
    ]);
  });

  it('tells a body that is not JSON (refused before the user is looked up) from a malformed batch', () => {
    expect(planIngest(bytes('{"media": ['), matcher)).toEqual({
      ok: false,
      stage: 'body',
      error: { code: 'invalid_request', message: 'body is not valid JSON' },
    });
    expect(planIngest(undefined, matcher)).toMatchObject({
      ok: false,
      stage: 'batch',
      error: { code: 'invalid_request' },
    });
    expect(planIngest(bytes({ media: Array.from({ length: 201 }, (_, i) => ({ id: `m${i}` })) }), matcher)).toEqual({
      ok: false,
      stage: 'batch',
      error: {
        code: 'invalid_batch_size',
        message: 'a batch holds at most 200 items, got 201',
        details: { max: 200, received: 201 },
      },
    });
  });

  it('reads the bytes as UTF-8, whatever view of a buffer they come in', () => {
    const text = JSON.stringify({ media: [itemAt('jörg-ü-🎸', 1, EVENT1)] });
    const padded = Buffer.concat([Buffer.from('xxxx'), Buffer.from(text), Buffer.from('yyyy')]);
    const planned = planIngest(padded.subarray(4, padded.length - 4), matcher);
    expect(planned.ok && planned.plan.items[0]!.mediaId).toBe('jörg-ü-🎸');
  });
});

describe('ingestReplyJson', () => {
  it('is the IngestResponse the object form serializes to, member for member and in order', () => {
    const planned = planIngest(bytes({ media: [itemAt('a"\\\u2028', 1, EVENT1), { id: 'r' }] }), matcher);
    if (!planned.ok) throw new Error('expected a plan');
    const events = [{ id: 1, name: 'An "event"' }] as never[];
    const text = ingestReplyJson(planned.plan, events, '2025-01-01T00:00:00.000Z');
    const object = {
      accepted: 1,
      matched: 1,
      rejected: [{ id: 'r', reason: 'missing_coordinates' }],
      matches: [{ media_id: 'a"\\\u2028', matched: true, event_id: 1, venue_id: null }],
      events,
      last_sync_at: '2025-01-01T00:00:00.000Z',
    };
    expect(text).toBe(JSON.stringify(object));
    expect(Object.keys(IngestResponse.shape)).toEqual(Object.keys(JSON.parse(text)));
  });
});

describe('parseJsonBody', () => {
  it.each([
    ['{"a":1}', { a: 1 }],
    ['[1,2]', [1, 2]],
    ['{"prototype":1,"constructors":2}', { prototype: 1, constructors: 2 }],
    ['{"note":"\\u00e9"}', { note: 'é' }],
    ['', undefined],
    [' \r\n\t', undefined],
  ])('reads %j', (text, value) => {
    expect(parseJsonBody(text)).toEqual({ ok: true, value });
  });

  it.each([
    '{"a":',
    'nope',
    '{"__proto__":{"polluted":1}}',
    '{"a":{"\\u005f_proto__":{"polluted":1}}}',
    '{"constructor":{"prototype":{"polluted":1}}}',
    '[{"x":{"constructor":{"prototype":{}}}}]',
  ])('refuses %j', (text) => {
    expect(parseJsonBody(text)).toEqual({ ok: false });
  });
});
