import { join } from 'node:path';
import { InterruptedError } from '../errors.js';
import { findJournal, openJournalReader, type JournalReader } from '../sync/journal-reader.js';
import { openDirectory, targetIdentity, withConnection, type ConnectionFlags } from './connection.js';
import type { CliContext } from './context.js';
import { describeError } from './exit.js';

/** What the dry run needs of sync's flags. */
export interface DryRunFlags extends ConnectionFlags {
  user?: string;
  email?: string;
  full: boolean;
}

/**
 * The user's journal for a dry run, read-only: found through /health (partner) and the
 * user's stats (whether a real run would be a full or an incremental pass), which are reads
 * only; without a reachable host, by the base URL and user id kept in each journal. An
 * e-mail is looked up in the directory only: a dry run never creates a user.
 */
export async function dryRunJournal(ctx: CliContext, flags: DryRunFlags, note: (line: string) => void): Promise<JournalReader | null> {
  if (flags.user === undefined && flags.email === undefined) return null;
  const connectionFlags = { baseUrl: flags.baseUrl, profile: flags.profile, retries: flags.retries ?? 1, timeout: flags.timeout ?? 10 };
  const target = targetIdentity(ctx, connectionFlags);
  let userId = flags.user ?? null;
  if (userId === null) {
    const directory = await openDirectory(ctx.paths);
    try {
      userId = directory.lookup(target, flags.email as string)?.userId ?? null;
    } finally {
      directory.close();
    }
  }
  if (userId === null) {
    note(`camroll: dry run: ${flags.email} is not known on this machine for ${target}: a real run would create or find the user and send every item`);
    return null;
  }
  let partnerId: string | null = null;
  try {
    await withConnection({ ctx, flags: connectionFlags }, async ({ client }) => {
      partnerId = (await client.health({ signal: ctx.signal })).partner_id;
      const stats = await client.stats(userId as string, { signal: ctx.signal });
      note(`camroll: dry run: a real run would be ${flags.full || !stats.has_synced ? 'a full' : 'an incremental'} pass (has_synced ${stats.has_synced})`);
    });
  } catch (error) {
    if (error instanceof InterruptedError) throw error;
    note(`camroll: dry run: could not check with the service (${describeError(error)}); counting from the local journal alone`);
  }
  const path = findJournal(join(ctx.paths.data, 'journals'), { baseUrl: target, partnerId, userId });
  if (path === null) {
    note('camroll: dry run: no sync journal for this user and target on this machine: a real run would send every item');
    return null;
  }
  return openJournalReader(path);
}
