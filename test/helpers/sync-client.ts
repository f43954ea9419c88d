import type { HealthResult, SyncCompleteResult } from '../../src/client/index.js';
import type { MediaMetadata, Stats } from '../../src/contract/index.js';
import type { SyncClient } from '../../src/sync/run.js';
import { FRESH_STATS } from './stats.js';

export interface AcceptingClientOptions {
  /** Called with each batch as it is sent. */
  onIngest?: (batch: MediaMetadata[]) => void;
  /** The user POST /users creates; without it, creating a user fails (the test gives a known user). */
  createdUser?: string;
  /** What the stats say besides a fresh profile's (a user that synced before). */
  stats?: () => Partial<Stats>;
}

/** A service that accepts every item it is sent and matches none, with no events. */
export function acceptingClient(options: AcceptingClientOptions = {}): SyncClient {
  const client: SyncClient = {
    health: async (): Promise<HealthResult> => ({
      status: 'ok',
      partner_id: 'partner-1',
      environment: 'sandbox',
      rate_limit: null,
    }),
    createUser: async () => {
      if (options.createdUser === undefined) throw new Error('this test creates no user');
      return { user_id: options.createdUser, existing: false, created_at: '2024-01-01T00:00:00.000Z' };
    },
    ingest: async (_user: string, batch: MediaMetadata[]) => {
      options.onIngest?.(batch);
      return {
        accepted: batch.length,
        matched: 0,
        rejected: [],
        matches: batch.map((m) => ({ media_id: m.id, matched: false, event_id: null, venue_id: null })),
        events: [],
        last_sync_at: '2024-01-01T00:00:00.000Z',
      };
    },
    syncComplete: async (): Promise<SyncCompleteResult> => ({
      has_synced: true,
      last_sync_at: '2024-01-01T00:00:00.000Z',
    }),
    allEvents: async function* () {},
    stats: async (): Promise<Stats> => ({ ...FRESH_STATS, ...options.stats?.() }),
  };
  return client;
}
