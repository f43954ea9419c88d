import { InterruptedError } from '../errors.js';
import { findJournal, openJournalReader, type JournalReader } from './journal-reader.js';
import type { SyncClient, SyncIdentity } from './run.js';

/** What a dry run may ask of the service and of this machine: reads only. */
export interface DryRunLookups {
  /** The target's identity (it keys journals and remembered users), without connecting. */
  target(): Promise<string>;
  /** The user id an e-mail was remembered under for the target on this machine, or null. */
  recall(target: string, email: string): Promise<string | null>;
  /** Runs `use` with a connection to the service (read calls only), then closes it. */
  read<T>(use: (client: Pick<SyncClient, 'health' | 'stats'>) => Promise<T>): Promise<T>;
}

/** What the journal discovery found out, for the user to read (the CLI words it). */
export type DryRunFinding =
  | { type: 'plan_unknown_email'; email: string; target: string }
  | { type: 'plan_pass'; pass: 'full' | 'incremental'; hasSynced: boolean }
  | { type: 'plan_unchecked'; error: unknown }
  | { type: 'plan_no_journal' }
  /** The service has received nothing for the user, so a real run starts the journal over (see runSync). */
  | { type: 'plan_journal_reset' };

export interface DryRunJournalOptions {
  identity: SyncIdentity | null;
  full: boolean;
  /** Journals folder (`ctx.paths.data/journals`). */
  journalDir: string;
  lookups: DryRunLookups;
  signal: AbortSignal;
  onFinding: (finding: DryRunFinding) => void;
}

/**
 * The user's journal for a dry run, read-only: found through /health (partner) and the
 * user's stats (whether a real run would be a full or an incremental pass), which are reads
 * only; without a reachable host, by the base URL and user id kept in each journal. An
 * e-mail is looked up on this machine only: a dry run never creates a user.
 */
export async function findDryRunJournal(options: DryRunJournalOptions): Promise<JournalReader | null> {
  const { identity, lookups, onFinding, signal } = options;
  if (identity === null) return null;
  const target = await lookups.target();
  const userId = 'userId' in identity ? identity.userId : await lookups.recall(target, identity.email);
  if (userId === null) {
    if (!('userId' in identity)) onFinding({ type: 'plan_unknown_email', email: identity.email, target });
    return null;
  }
  let partnerId: string | null = null;
  // Null when the service said it has received nothing for the user; undefined when not asked.
  let lastSyncAt: string | null | undefined;
  try {
    await lookups.read(async (client) => {
      partnerId = (await client.health({ signal })).partner_id;
      const { has_synced: hasSynced, last_sync_at: last } = await client.stats(userId, { signal });
      lastSyncAt = last;
      onFinding({ type: 'plan_pass', pass: options.full || !hasSynced ? 'full' : 'incremental', hasSynced });
    });
  } catch (error) {
    if (error instanceof InterruptedError) throw error;
    onFinding({ type: 'plan_unchecked', error });
  }
  const path = findJournal(options.journalDir, { baseUrl: target, partnerId, userId });
  if (path === null) {
    onFinding({ type: 'plan_no_journal' });
    return null;
  }
  const reader = openJournalReader(path);
  // A real run finds the journal wrong and starts it over, sending every item: the plan must say the same.
  if (lastSyncAt === null && reader.hasAccepted()) {
    reader.close();
    onFinding({ type: 'plan_journal_reset' });
    return null;
  }
  return reader;
}
