import { createHash, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { createApp, type CreateAppOptions } from '../../src/service/app.js';
import { parseCatalog, type Catalog } from '../../src/service/catalog/index.js';
import type { KeyEntry } from '../../src/service/keys.js';
import { openPostgresStore } from '../../src/service/store/postgres.js';
import { openStore } from '../../src/service/store/store.js';
import type { StoreRetryOptions } from '../../src/service/store/retry.js';
import type { Store } from '../../src/service/store/types.js';
import { createResponseCheck } from './contract-check.js';

/** The demo catalog's anchor venues and events (fixed ids and values), as a catalog file. */
export const ANCHOR_CATALOG_JSON = {
  venues: [
    {
      id: 1,
      name: 'Madison Square Garden',
      city: 'New York',
      region: 'NY',
      country: 'US',
      latitude: 40.7505,
      longitude: -73.9934,
      radius_m: 250,
      timezone: 'America/New_York',
    },
    {
      id: 2,
      name: 'Sydney Opera House',
      city: 'Sydney',
      region: 'NSW',
      country: 'AU',
      latitude: -33.8568,
      longitude: 151.2153,
      radius_m: 200,
      timezone: 'Australia/Sydney',
    },
    {
      id: 3,
      name: 'Wembley Stadium',
      city: 'London',
      region: 'England',
      country: 'GB',
      latitude: 51.556,
      longitude: -0.2795,
      radius_m: 400,
      timezone: 'Europe/London',
    },
    {
      id: 4,
      name: 'Tokyo Dome',
      city: 'Tokyo',
      region: 'Tokyo',
      country: 'JP',
      latitude: 35.7056,
      longitude: 139.7519,
      radius_m: 300,
      timezone: 'Asia/Tokyo',
    },
    {
      id: 5,
      name: 'Allianz Parque',
      city: 'São Paulo',
      region: 'SP',
      country: 'BR',
      latitude: -23.5275,
      longitude: -46.6783,
      radius_m: 300,
      timezone: 'America/Sao_Paulo',
    },
    {
      id: 6,
      name: 'Red Rocks Amphitheatre',
      city: 'Morrison',
      region: 'CO',
      country: 'US',
      latitude: 39.6654,
      longitude: -105.2057,
      radius_m: 400,
      timezone: 'America/Denver',
    },
    {
      id: 7,
      name: 'Cape Town Stadium',
      city: 'Cape Town',
      region: 'Western Cape',
      country: 'ZA',
      latitude: -33.9035,
      longitude: 18.4112,
      radius_m: 350,
      timezone: 'Africa/Johannesburg',
    },
    {
      id: 8,
      name: 'Accor Arena',
      city: 'Paris',
      region: 'Île-de-France',
      country: 'FR',
      latitude: 48.8386,
      longitude: 2.3786,
      radius_m: 250,
      timezone: 'Europe/Paris',
    },
  ],
  performers: [
    { id: 1, name: 'The Example Band', category: 'rock', image_url: null },
    { id: 2, name: 'Aurora Strings', category: 'classical', image_url: null },
    { id: 3, name: 'Northbank FC', category: 'Premier League', image_url: null },
    { id: 4, name: 'Riverside United', category: 'Premier League', image_url: null },
    { id: 5, name: 'Yomiuri Giants', category: 'NPB', image_url: null },
    { id: 6, name: 'Hanshin Tigers', category: 'NPB', image_url: null },
    { id: 7, name: 'Canyon Echo', category: 'folk', image_url: null },
    { id: 8, name: 'Cape Town City', category: 'PSL', image_url: null },
    { id: 9, name: 'Stormers Select', category: 'PSL', image_url: null },
    { id: 10, name: 'Nuit Blanche', category: 'electronic', image_url: null },
  ],
  events: [
    {
      id: 1,
      name: 'The Example Band: Summer Tour',
      kind: 'concert',
      venue_id: 1,
      starts_at_local: '2024-07-12T20:00:00',
      performers: [{ id: 1, is_headliner: true }],
      licensed: true,
      hidden: false,
    },
    {
      id: 2,
      name: 'Aurora Strings at the Opera House',
      kind: 'concert',
      venue_id: 2,
      starts_at_local: '2023-12-09T19:30:00',
      performers: [{ id: 2, is_headliner: true }],
      licensed: true,
      hidden: false,
    },
    {
      id: 3,
      name: 'Northbank FC vs Riverside United',
      kind: 'sport',
      venue_id: 3,
      starts_at_local: '2024-03-30T20:00:00',
      performers: [
        { id: 3, is_headliner: null },
        { id: 4, is_headliner: null },
      ],
      licensed: true,
      hidden: false,
    },
    {
      id: 4,
      name: 'Yomiuri Giants vs Hanshin Tigers',
      kind: 'sport',
      venue_id: 4,
      starts_at_local: '2022-08-20T18:00:00',
      performers: [
        { id: 5, is_headliner: null },
        { id: 6, is_headliner: null },
      ],
      licensed: true,
      hidden: false,
    },
    {
      id: 5,
      name: 'The Example Band: World Tour',
      kind: 'concert',
      venue_id: 5,
      starts_at_local: '2024-11-16T21:00:00',
      performers: [{ id: 1, is_headliner: true }],
      licensed: true,
      hidden: false,
    },
    {
      id: 6,
      name: 'Canyon Echo at Red Rocks',
      kind: 'concert',
      venue_id: 6,
      starts_at_local: '2023-08-05T19:00:00',
      performers: [{ id: 7, is_headliner: true }],
      licensed: false,
      hidden: false,
    },
    {
      id: 7,
      name: 'Cape Town City vs Stormers Select',
      kind: 'sport',
      venue_id: 7,
      starts_at_local: '2022-02-19T15:00:00',
      performers: [
        { id: 8, is_headliner: null },
        { id: 9, is_headliner: null },
      ],
      licensed: true,
      hidden: true,
    },
    {
      id: 8,
      name: 'Nuit Blanche live',
      kind: 'concert',
      venue_id: 8,
      starts_at_local: '2024-10-26T20:00:00',
      performers: [{ id: 10, is_headliner: true }],
      licensed: true,
      hidden: false,
    },
  ],
};

/** Venue centres by anchor venue id. */
export const VENUE = Object.fromEntries(
  ANCHOR_CATALOG_JSON.venues.map((v) => [v.id, { lat: v.latitude, lon: v.longitude }]),
) as Record<number, { lat: number; lon: number }>;

export const anchorCatalog = (): Catalog => parseCatalog(ANCHOR_CATALOG_JSON);

export const KEYS: KeyEntry[] = [
  { key: 'sk_test_acme_sandbox', partner_id: 'acme', environment: 'sandbox' },
  { key: 'sk_live_acme_production', partner_id: 'acme', environment: 'production' },
  { key: 'sk_test_globex_sandbox', partner_id: 'globex', environment: 'sandbox' },
  {
    key: 'sk_test_limited',
    partner_id: 'limited',
    environment: 'sandbox',
    rate_limit: { limit: 3, window_seconds: 60 },
  },
];
export const ACME = KEYS[0]!.key;
export const ACME_PROD = KEYS[1]!.key;
export const GLOBEX = KEYS[2]!.key;
export const LIMITED = KEYS[3]!.key;

export interface TestApp {
  app: FastifyInstance;
  store: Store;
  /** Responses that did not conform to the OpenAPI document (close() fails when any). */
  violations: string[];
  /** Sets the clock the service reads (ms). */
  setNow(ms: number): void;
  close(): Promise<void>;
}

/**
 * The store the service tests run on: SQLite, or PostgreSQL when the vitest project sets
 * CAMROLL_TEST_STORE=postgres (with CAMROLL_TEST_DATABASE_URL). The same tests, both stores.
 */
export const TEST_STORE: 'sqlite' | 'postgres' = process.env.CAMROLL_TEST_STORE === 'postgres' ? 'postgres' : 'sqlite';

/** A schema name for a PostgreSQL test store: fresh each time, or the same one for the same `dbPath` (reopening). */
export function testSchema(dbPath?: string): string {
  const seed =
    dbPath === undefined || dbPath === ':memory:' ? randomUUID() : createHash('sha256').update(dbPath).digest('hex');
  return `t_${seed.replaceAll('-', '').slice(0, 24)}`;
}

/** Opens a test store of the selected kind; `dbPath` names one database (a file, or a schema on PostgreSQL). */
export async function openTestStore(options: { dbPath?: string; retry?: StoreRetryOptions } = {}): Promise<Store> {
  const retry = options.retry ? { retry: options.retry } : {};
  if (TEST_STORE === 'sqlite') return openStore({ path: options.dbPath ?? ':memory:', ...retry });
  const url = process.env.CAMROLL_TEST_DATABASE_URL;
  if (!url) throw new Error('CAMROLL_TEST_STORE=postgres needs CAMROLL_TEST_DATABASE_URL');
  return openPostgresStore({ url, schema: testSchema(options.dbPath), poolSize: 4, ...retry });
}

/** An in-process app over a fresh store (in-memory SQLite, or a new PostgreSQL schema) and the anchor catalog. */
export async function makeApp(
  options: { dbPath?: string; catalog?: Catalog; retry?: StoreRetryOptions } & Pick<
    CreateAppOptions,
    'limits' | 'authThrottle' | 'ingestThreads'
  > = {},
): Promise<TestApp> {
  const store = await openTestStore(options);
  let now = Date.parse('2025-01-01T00:00:00Z');
  const app = await createApp({
    store,
    catalog: options.catalog ?? anchorCatalog(),
    keys: KEYS,
    clock: () => now,
    limits: options.limits,
    authThrottle: options.authThrottle,
    ingestThreads: options.ingestThreads,
  });
  const violations = checkResponses(app);
  await app.ready();
  return {
    app,
    store,
    violations,
    setNow: (ms) => {
      now = ms;
    },
    close: async () => {
      await app.close();
      await store.close();
      if (violations.length > 0) throw new Error(`responses outside the OpenAPI document:\n${violations.join('\n')}`);
    },
  };
}

const contract = createResponseCheck();

/**
 * Checks every response the app sends against the OpenAPI document; returns the list of
 * problems, which grows as requests are answered. Call before `ready()`.
 */
export function checkResponses(app: FastifyInstance): string[] {
  const violations: string[] = [];
  app.addHook('onSend', async (request, reply, payload) => {
    if (typeof payload === 'string') {
      violations.push(
        ...contract.check({
          method: request.method,
          url: request.url,
          status: reply.statusCode,
          headers: reply.getHeaders(),
          body: payload,
        }),
      );
    }
    return payload;
  });
  return violations;
}

/** A temp folder removed by the returned cleanup. */
export function tempDir(prefix = 'camroll-service-'): { dir: string; cleanup(): void } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** A media item at a venue centre, `minutes` from the UTC instant `iso`. */
export function itemAt(
  id: string,
  venueId: number,
  iso: string,
  minutes = 0,
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  const venue = VENUE[venueId]!;
  return {
    id,
    taken_at: new Date(Date.parse(iso) + minutes * 60_000).toISOString(),
    latitude: venue.lat,
    longitude: venue.lon,
    ...extra,
  };
}

/** Creates a user with `key` and returns its id. */
export async function createUser(app: FastifyInstance, key: string, email: string): Promise<string> {
  const res = await app.inject({
    method: 'POST',
    url: '/v1/users',
    headers: { 'x-partner-api-key': key },
    payload: { email },
  });
  if (res.statusCode !== 201) throw new Error(`user create failed: ${res.statusCode} ${res.body}`);
  return (res.json() as { user_id: string }).user_id;
}
