import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { MediaMetadata } from '../../src/contract/index.js';
import { InterruptedError, OutageError } from '../../src/errors.js';
import type { SyncClient } from '../../src/sync/run.js';
import { INTERRUPTED } from '../../src/sync/ending.js';
import { runSyncSession, type SyncEvent, type SyncService, type SyncSessionOptions } from '../../src/sync/session.js';
import { acceptingClient } from '../helpers/sync-client.js';

const LIBRARY = join(import.meta.dirname, '..', '..', 'fixtures', 'library', 'events');
const USER = '7d9f6a52-1c3b-4f0e-9a1d-2b8c4e6f0a11';
const TARGET = {
  kind: 'remote' as const,
  baseUrl: 'https://api.example.com/v1',
  identity: 'https://api.example.com/v1',
};

/** A service that accepts everything, for a user it has never seen; `sent` collects what it was sent. */
const acceptingNewUser = (sent: MediaMetadata[]): SyncClient =>
  acceptingClient({ createdUser: USER, onIngest: (batch) => sent.push(...batch) });

const noLookups = {
  target: async () => TARGET.identity,
  recall: async () => null,
  read: async () => {
    throw new Error('a real run makes no dry-run reads');
  },
};

describe('runSyncSession', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'camroll-session-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const options = (
    service: SyncService,
    events: SyncEvent[],
    over: Partial<SyncSessionOptions> = {},
  ): SyncSessionOptions => ({
    roots: [LIBRARY],
    cwd: dir,
    scan: { exclude: [], followSymlinks: false, cache: false, cacheDir: join(dir, 'cache'), workers: 1 },
    pass: { dryRun: false, identity: { email: 'ana@example.com' }, watch: null },
    batchSize: 5,
    concurrency: 2,
    full: false,
    readHistory: true,
    allowEmpty: false,
    maxConnectionFailures: 5,
    journalDir: join(dir, 'journals'),
    signal: new AbortController().signal,
    service,
    onEvent: (event) => events.push(event),
    ...over,
  });

  it('starts the scan before the service is reached, then sends everything and reports the new user', async () => {
    const events: SyncEvent[] = [];
    const sent: MediaMetadata[] = [];
    let listedWhileOpening = false;
    let remembered: string | null = null;
    let walkListed = (): void => undefined;
    const listed = new Promise<void>((resolve) => (walkListed = resolve));
    const service: SyncService = {
      ...noLookups,
      // Resolves only once the walk has listed the library: a scan that waited for the
      // connection would never get there.
      open: async () => {
        await listed;
        listedWhileOpening = true;
        return {
          client: acceptingNewUser(sent),
          target: TARGET,
          users: { recall: () => null, remember: (_target, _email, userId) => (remembered = userId) },
          close: async () => undefined,
        };
      },
    };
    const onEvent = (event: SyncEvent): void => {
      events.push(event);
      if (event.type === 'listed' && event.final) walkListed();
    };
    const ended = await runSyncSession(options(service, events, { onEvent }));
    expect(listedWhileOpening).toBe(true);
    expect(ended.outageReason).toBeNull();
    expect(ended.watch).toBeNull();
    expect(ended.result.outcome).toBe('ok');
    expect(ended.result.dry_run).toBe(false);
    expect(ended.result.sent).toBe(sent.length);
    expect(sent.length).toBeGreaterThan(0);
    expect(remembered).toBe(USER);
    expect(events).toContainEqual({
      type: 'user_created',
      userId: USER,
      email: 'ana@example.com',
      target: TARGET,
      environment: 'sandbox',
    });
    expect(events).toContainEqual({ type: 'status', message: `full pass for user ${USER}` });
    const queued = events
      .filter((e) => e.type === 'queued')
      .reduce((n, e) => n + (e.type === 'queued' ? e.items : 0), 0);
    expect(queued).toBe(sent.length);
  });

  it('the outage stop aborts the calls in flight: Ctrl-C-like interruption before the pass becomes an outage error', async () => {
    const events: SyncEvent[] = [];
    let closed = false;
    const service: SyncService = {
      ...noLookups,
      open: async (onRequest) => ({
        client: {
          ...acceptingNewUser([]),
          // The key is refused: the tracker stops the sync at once, which aborts this call's signal.
          health: async ({ signal }: { signal: AbortSignal }) => {
            onRequest({ status: 401, code: 'invalid_api_key' });
            if (signal.aborted) throw new InterruptedError('request aborted');
            throw new Error('the outage stop did not abort the request');
          },
        } as unknown as SyncClient,
        target: TARGET,
        users: { recall: () => null, remember: () => undefined },
        close: async () => {
          closed = true;
        },
      }),
    };
    const failure = await runSyncSession(options(service, events)).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(OutageError);
    expect(failure).toMatchObject({
      message:
        'the service refused the key (401 invalid_api_key); nothing was sent: run the same command again when the ' +
        'host is back',
    });
    expect(closed).toBe(true);
  });

  it('a failure opening the service passes unchanged, and nothing is left open', async () => {
    const refused = new Error('no base URL configured');
    const service: SyncService = {
      ...noLookups,
      open: async () => {
        throw refused;
      },
    };
    expect(await runSyncSession(options(service, [])).catch((error: unknown) => error)).toBe(refused);
  });

  it('Ctrl-C while the watches are set: an interruption before anything was sent; the service closed', async () => {
    const controller = new AbortController();
    const sent: MediaMetadata[] = [];
    let closed = false;
    const service: SyncService = {
      ...noLookups,
      open: async () => {
        // The user presses Ctrl-C once the connection is up, while the watches are being set.
        controller.abort();
        return {
          client: acceptingNewUser(sent),
          target: TARGET,
          users: { recall: () => null, remember: () => undefined },
          close: async () => {
            closed = true;
          },
        };
      },
    };
    const pass = { dryRun: false as const, identity: { userId: USER }, watch: { poll: false } };
    const session = runSyncSession(options(service, [], { pass, signal: controller.signal }));
    const failure = await session.catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(InterruptedError);
    expect(failure).toMatchObject({ message: INTERRUPTED });
    expect(closed).toBe(true);
    expect(sent).toEqual([]);
  });

  it('a dry run reads the journal without opening the service to send, and counts every file', async () => {
    const events: SyncEvent[] = [];
    const service: SyncService = {
      ...noLookups,
      open: async () => {
        throw new Error('a dry run opens nothing to send');
      },
    };
    const ended = await runSyncSession(
      options(service, events, { pass: { dryRun: true, identity: { email: 'ana@example.com' } } }),
    );
    expect(ended.result.dry_run).toBe(true);
    expect(ended.result.outcome).toBe('ok');
    expect(ended.result.files).toBeGreaterThan(0);
    expect(events).toContainEqual({ type: 'plan_unknown_email', email: 'ana@example.com', target: TARGET.identity });
  });
});
