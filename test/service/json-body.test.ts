import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseJsonBody } from '../../src/service/json-body.js';
import { ACME, createUser, itemAt, makeApp, type TestApp } from './helpers.js';

const BOM = Buffer.from([0xef, 0xbb, 0xbf]);
const EVENT1 = '2024-07-13T00:00:00Z';

describe('parseJsonBody and a byte order mark', () => {
  it('ignores one leading BOM whatever the body holds (the poisoning scan or not), and only one', () => {
    const table: Array<[string, unknown]> = [
      ['\ufeff{"a":1}', { ok: true, value: { a: 1 } }],
      ['\ufeff{"a":"constructor"}', { ok: true, value: { a: 'constructor' } }],
      ['\ufeff{"a":"\\u00e9"}', { ok: true, value: { a: 'é' } }],
      ['\ufeff', { ok: true, value: undefined }],
      ['\ufeff  \n', { ok: true, value: undefined }],
      ['\ufeff\ufeff{"a":1}', { ok: false }],
      ['\ufeff\ufeff{"a":"constructor"}', { ok: false }],
      [' \ufeff{"a":1}', { ok: false }],
      ['{"a":1}\ufeff', { ok: false }],
      ['\ufeff{"__proto__":{"x":1}}', { ok: false }],
      ['\ufeff{"a":', { ok: false }],
    ];
    for (const [text, expected] of table) expect(parseJsonBody(text), JSON.stringify(text)).toEqual(expected);
  });
});

/** Every route that takes a body, each body with words that take the poisoning scan and without. */
function bodies(user: string, n: number): Array<{ name: string; url: string; body: string; status: number }> {
  const media = (extra: Record<string, unknown>) =>
    JSON.stringify({ media: [itemAt(`bom-${n}`, 1, EVENT1, 0, extra)] });
  return [
    { name: 'POST /users', url: '/v1/users', body: JSON.stringify({ email: `bom-${n}@example.com` }), status: 201 },
    {
      name: 'POST /users, a word the scan looks for',
      url: '/v1/users',
      body: JSON.stringify({ email: `bom-c${n}@example.com`, first_name: 'constructor' }),
      status: 201,
    },
    {
      name: 'POST /users, an escape',
      url: '/v1/users',
      body: `{"email":"bom-u${n}@example.com","last_name":"\\u00e9"}`,
      status: 201,
    },
    { name: 'POST media', url: `/v1/users/${user}/media`, body: media({}), status: 200 },
    {
      name: 'POST media, a word the scan looks for',
      url: `/v1/users/${user}/media`,
      body: media({ thumbnail_url: 'https://x/prototype.jpg' }),
      status: 200,
    },
    {
      name: 'POST media, an escape',
      url: `/v1/users/${user}/media`,
      body: media({ filename: 'caf\\u00e9.jpg' }).replace('caf\\\\u00e9', 'caf\\u00e9'),
      status: 200,
    },
    { name: 'POST sync-complete, {}', url: `/v1/users/${user}/sync-complete`, body: '{}', status: 200 },
    { name: 'POST sync-complete, blank', url: `/v1/users/${user}/sync-complete`, body: ' ', status: 200 },
  ];
}

describe.each([
  { planner: 'the request thread', ingestThreads: 0 },
  { planner: 'an ingest thread', ingestThreads: 1 },
])('a BOM on every route that takes a body (ingest planned in $planner)', ({ ingestThreads }) => {
  let t: TestApp;
  let user: string;
  beforeAll(async () => {
    t = await makeApp({ ingestThreads });
    user = await createUser(t.app, ACME, 'bom-owner@example.com');
  });
  afterAll(async () => {
    await t.close();
  });
  const post = (url: string, payload: Buffer) =>
    t.app.inject({
      method: 'POST',
      url,
      headers: { 'x-partner-api-key': ACME, 'content-type': 'application/json' },
      payload,
    });

  it('is ignored: the same answer as without it', async () => {
    let n = 0;
    for (const withBom of [false, true]) {
      n += 1;
      for (const sent of bodies(user, n)) {
        const bytes = Buffer.from(sent.body, 'utf8');
        const res = await post(sent.url, withBom ? Buffer.concat([BOM, bytes]) : bytes);
        expect(res.statusCode, `${sent.name}${withBom ? ' with a BOM' : ''}: ${res.body}`).toBe(sent.status);
        if (sent.url.endsWith('/media')) expect(res.json()).toMatchObject({ accepted: 1, matched: 1, rejected: [] });
      }
    }
  });

  it('is the only thing ignored: two BOMs, a BOM after a space, a BOM before broken JSON are 400 on every route', async () => {
    for (const sent of bodies(user, 99)) {
      const bytes = Buffer.from(sent.body, 'utf8');
      for (const [label, payload] of [
        ['two BOMs', Buffer.concat([BOM, BOM, bytes])],
        ['a space then a BOM', Buffer.concat([Buffer.from(' '), BOM, bytes])],
        ['a BOM and broken JSON', Buffer.concat([BOM, Buffer.from('{"a":')])],
      ] as const) {
        if (sent.body.trim() === '' && label !== 'a BOM and broken JSON') continue; // blank stays blank
        const res = await post(sent.url, payload);
        expect(res.statusCode, `${sent.name}, ${label}`).toBe(400);
        expect(res.json()).toMatchObject({ error: { code: 'invalid_request' } });
      }
    }
  });
});
