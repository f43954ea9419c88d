import { createConfig, lintFromString } from '@redocly/openapi-core';
import { describe, expect, it } from 'vitest';
import { buildOpenApiDocument } from '../../src/service/openapi.js';
import { OPERATIONS } from '../../src/service/openapi-operations.js';
import { ERROR_STATUS } from '../../src/contract/errors.js';
import { LocalDateTime } from '../../src/contract/events.js';
import { SERVICE_ONLY_STATUS } from '../../src/service/service-error.js';
import { createResponseCheck, knownCodes } from './contract-check.js';
import { ACME, createUser, makeApp } from './helpers.js';

const doc = buildOpenApiDocument() as Record<string, any>;

describe('the OpenAPI document', () => {
  it('lints clean with the recommended ruleset (errors and warnings)', async () => {
    const config = await createConfig({ extends: ['recommended'] });
    const problems = await lintFromString({
      source: JSON.stringify(doc, null, 2),
      absoluteRef: 'openapi.json',
      config,
    });
    expect(problems.map((p) => `${p.severity} ${p.ruleId}: ${p.message} at ${p.location[0]?.pointer ?? ''}`)).toEqual(
      [],
    );
  }, 30_000);

  it(
    'declares starts_at_local as local time (no date-time), media_type defaulting to photo, a non-null ' +
      'UniqueVenue.venue',
    () => {
      const { schemas } = doc.components;
      const startsAt = schemas.Event.properties.starts_at_local;
      expect(startsAt.type).toBe('string');
      expect(startsAt.format).toBeUndefined();
      expect(new RegExp(startsAt.pattern).test('2024-07-12T20:00:00')).toBe(true);
      expect(schemas.MediaMetadata.properties.media_type.default).toBe('photo');
      expect(schemas.UniqueVenue.properties.venue).toEqual({ $ref: '#/components/schemas/Venue' });
      expect(schemas.UniqueVenue.required).toContain('venue');
      // The contract's nullable members stay nullable.
      expect(schemas.Event.properties.venue.anyOf).toEqual([{ $ref: '#/components/schemas/Venue' }, { type: 'null' }]);
      expect(schemas.MediaMetadata.properties.thumbnail_url).toMatchObject({ type: ['string', 'null'] });
      expect(schemas.MediaMetadata.properties.thumbnail_url.format).toBeUndefined();
    },
  );

  it(
    'has the members generated clients and validating proxies rely on: idn-email, a boolean include_media, a local ' +
      'starts_at_local, open error codes, a contact',
    async () => {
      const { schemas } = doc.components;
      expect(schemas.UserCreateRequest.properties.email).toMatchObject({ type: 'string', format: 'idn-email' });
      expect(doc.info.contact).toEqual({ name: expect.any(String) });

      const include = doc.paths['/users/{user_id}/events'].get.parameters.find((p: any) => p.name === 'include_media');
      expect(include.schema).toEqual({ type: 'boolean', default: true });
      // What a generated client sends for that boolean is what the service takes.
      const t = await makeApp();
      try {
        const user = await createUser(t.app, ACME, 'bool@example.com');
        for (const value of ['true', 'false']) {
          const res = await t.app.inject({
            method: 'GET',
            url: `/v1/users/${user}/events?include_media=${value}`,
            headers: { 'x-partner-api-key': ACME },
          });
          expect(res.statusCode).toBe(200);
        }
      } finally {
        await t.close();
      }

      // The pattern and the contract's own schema agree, and neither takes an offset or Z.
      const startsAt = schemas.Event.properties.starts_at_local;
      expect(startsAt.description).toMatch(/no offset/);
      const pattern = new RegExp(startsAt.pattern);
      const table: Array<[string, boolean]> = [
        ['2024-07-12T20:00:00', true],
        ['2024-07-12T20:00:00.250', true],
        ['2024-07-12T20:00', true],
        ['2024-02-29T20:00:00', true],
        ['2024-07-12T20:00:00Z', false],
        ['2024-07-12T20:00:00+02:00', false],
        ['2024-07-12T20:00:00-0500', false],
        ['2023-02-29T20:00:00', false],
        ['2024-07-12 20:00:00', false],
        ['2024-07-12', false],
        ['2024-07-12T24:00:00', false],
      ];
      for (const [text, ok] of table) {
        expect(pattern.test(text), text).toBe(ok);
        expect(LocalDateTime.safeParse(text).success, text).toBe(ok);
      }

      // error.code: any string is valid (unknown codes are handled by status); the known ones are listed.
      const code = schemas.ErrorEnvelope.properties.error.properties.code;
      expect(code.type).toBe('string');
      expect(code.enum).toBeUndefined();
      for (const known of [...Object.keys(ERROR_STATUS), ...Object.keys(SERVICE_ONLY_STATUS)])
        expect(code.description).toContain(known);
      for (const item of Object.values(doc.paths as Record<string, Record<string, any>>)) {
        for (const op of Object.values(item)) {
          for (const [status, response] of Object.entries(op.responses as Record<string, any>)) {
            if (Number(status) < 400) continue;
            const open = response.content['application/json'].schema.allOf[1].properties.error.properties.code;
            expect(open.anyOf).toContainEqual({ type: 'string' });
          }
        }
      }
    },
  );

  it('keeps wrong keys at 401; /health lists 429 only for an address past its tries, /ping none', () => {
    expect(knownCodes(doc.paths['/health'].get.responses['401'])).toEqual(['invalid_api_key']);
    expect(knownCodes(doc.paths['/health'].get.responses['429'])).toEqual(['rate_limited']);
    expect(doc.paths['/health'].get.description).toMatch(/30 wrong keys/);
    expect(Object.keys(doc.paths['/ping'].get.responses)).not.toContain('429');
  });

  it('gives every operation an id, a tag, a description, its security and its error codes by status', () => {
    const operations = Object.values(doc.paths as Record<string, Record<string, any>>).flatMap((item) =>
      Object.values(item),
    );
    expect(operations).toHaveLength(OPERATIONS.length);
    expect(new Set(operations.map((op) => op.operationId)).size).toBe(operations.length);
    for (const op of operations) {
      expect(op.tags).toHaveLength(1);
      expect(op.description.length).toBeGreaterThan(10);
      for (const [status, response] of Object.entries(op.responses as Record<string, any>)) {
        if (Number(status) < 400) continue;
        const codes = knownCodes(response) ?? [];
        expect(codes.length).toBeGreaterThan(0);
        if (status === '429' || status === '503') expect(response.headers['Retry-After'].required).toBe(true);
      }
    }
    expect(doc.paths['/ping'].get.security).toEqual([]);
    expect(doc.paths['/health'].get.security).toEqual([{ PartnerApiKey: [] }]);
    expect(doc.paths['/users'].post.requestBody.required).toBe(true);
    expect(doc.paths['/users/{user_id}/media'].post.requestBody.required).toBe(true);
    expect(doc.paths['/users/{user_id}/sync-complete'].post.requestBody.required).toBe(false);
    const ingest = doc.paths['/users/{user_id}/media'].post.responses;
    expect(knownCodes(ingest['413'])?.sort()).toEqual(['invalid_batch_size', 'payload_too_large']);
    expect(knownCodes(ingest['400'])?.sort()).toEqual(['empty_batch', 'invalid_media_item', 'invalid_request']);
    expect(Object.keys(doc.paths['/users'].post.responses).sort()).toEqual([
      '201',
      '400',
      '401',
      '408',
      '413',
      '415',
      '429',
      '431',
      '500',
      '503',
    ]);
    // The service-only codes are documented.
    for (const code of Object.keys(SERVICE_ONLY_STATUS)) expect(doc.info.description).toContain(code);
  });

  it('has a route in the service for every operation', async () => {
    const t = await makeApp();
    try {
      for (const op of OPERATIONS) {
        const url = `/v1${op.path.replace('{user_id}', '00000000-0000-4000-8000-000000000000')}`;
        const res = await t.app.inject({
          method: op.method.toUpperCase() as 'GET' | 'POST',
          url,
          headers: { 'x-partner-api-key': ACME },
        });
        // Answered by a route (200, 201, or a route's own error), never as an unknown path or method.
        expect(String(res.json().error?.code ?? res.statusCode), op.operationId).not.toMatch(
          /^(not_found|method_not_allowed)$/,
        );
      }
    } finally {
      await t.close();
    }
  });
});

describe('the response check', () => {
  const check = createResponseCheck();

  it('passes conforming responses and names what breaks the document', () => {
    const event = {
      id: 1,
      name: 'x',
      starts_at_local: '2024-07-12T20:00:00',
      media: [{ media_id: 'a', thumbnail_url: '' }],
    };
    const page = { events: [event], has_more: false, next_cursor: null, total: 1 };
    const url = '/v1/users/00000000-0000-4000-8000-000000000000/events';
    expect(check.check({ method: 'GET', url, status: 200, headers: {}, body: JSON.stringify(page) })).toEqual([]);
    const offset = { ...page, events: [{ ...event, starts_at_local: 'tomorrow' }] };
    expect(check.check({ method: 'GET', url, status: 200, headers: {}, body: JSON.stringify(offset) })).toHaveLength(1);
    const wrongCode = JSON.stringify({ error: { code: 'invalid_batch_size', message: 'x' } });
    expect(check.check({ method: 'GET', url, status: 413, headers: {}, body: wrongCode })[0]).toMatch(
      /status not documented/,
    );
    const limited = JSON.stringify({ error: { code: 'rate_limited', message: 'x' } });
    expect(check.check({ method: 'GET', url, status: 429, headers: {}, body: limited })[0]).toMatch(
      /Retry-After missing/,
    );
    expect(check.check({ method: 'GET', url, status: 429, headers: { 'retry-after': '3' }, body: limited })).toEqual(
      [],
    );
    // A code added later passes the document (only the service's own check names it).
    const later = JSON.stringify({ error: { code: 'quota_exceeded_later', message: 'x' } });
    const laterProblems = check.check({ method: 'GET', url, status: 400, headers: {}, body: later });
    expect(laterProblems).toHaveLength(1);
    expect(laterProblems[0]).toMatch(/code quota_exceeded_later not among the known codes of listEvents/);
    const badCode = JSON.stringify({ error: { code: 'invalid_email', message: 'x' } });
    expect(check.check({ method: 'GET', url, status: 400, headers: {}, body: badCode })).toHaveLength(1);
    expect(
      check.check({
        method: 'DELETE',
        url: '/v1/users',
        status: 405,
        headers: {},
        body: JSON.stringify({ error: { code: 'method_not_allowed', message: 'x' } }),
      }),
    ).toEqual([]);
  });

  it('checks every response of an in-process app (makeApp) as it is sent', async () => {
    const t = await makeApp();
    const user = await createUser(t.app, ACME, 'doc@example.com');
    await t.app.inject({ method: 'GET', url: `/v1/users/${user}/events`, headers: { 'x-partner-api-key': ACME } });
    expect(t.violations).toEqual([]);
    // A response the document forbids is recorded, and close() reports it.
    t.violations.push('forced');
    await expect(t.close()).rejects.toThrow(/forced/);
  });
});
