import { z } from 'zod';
import { MAX_BATCH_ITEMS, MIN_BATCH_ITEMS } from '../contract/index.js';
import { UsageError } from '../errors.js';
import { DEFAULT_MAX_CONNECTION_FAILURES } from '../sync/outage.js';
import type { SyncSessionOptions } from '../sync/session.js';
import { parseEmail, parseUserId, refuseBothUserFlags } from './connection-args.js';

/** Requests in flight at most (`--concurrency`). */
export const MAX_CONCURRENCY = 32;
/** Requests in flight without `--concurrency`. */
export const DEFAULT_CONCURRENCY = 4;

/** `camroll sync`'s flags as commander hands them over, checked; the scan's own are read by `scanOptionsFrom`. */
export const SyncFlags = z.object({
  user: z.string().min(1).optional(),
  email: z.string().min(1).optional(),
  batchSize: z.number().int().min(MIN_BATCH_ITEMS).max(MAX_BATCH_ITEMS).default(MAX_BATCH_ITEMS),
  concurrency: z.number().int().min(1).max(MAX_CONCURRENCY).default(DEFAULT_CONCURRENCY),
  full: z.boolean().default(false),
  dryRun: z.boolean().default(false),
  report: z.string().min(1).optional(),
  html: z.string().min(1).optional(),
  json: z.boolean().default(false),
  baseUrl: z.string().optional(),
  profile: z.string().optional(),
  retries: z.number().int().optional(),
  timeout: z.number().int().optional(),
  verbose: z.boolean().optional(),
  debug: z.boolean().optional(),
  allowInsecureHttp: z.boolean().optional(),
  quiet: z.boolean().default(false),
  progress: z.boolean().default(true),
  events: z.boolean().default(true),
  maxConnectionFailures: z.number().int().default(DEFAULT_MAX_CONNECTION_FAILURES),
  allowEmpty: z.boolean().default(false),
  allowMissingParts: z.boolean().default(false),
  logFile: z.string().min(1).optional(),
  watch: z.boolean().default(false),
  poll: z.boolean().default(false),
});
export type SyncFlags = z.infer<typeof SyncFlags>;
export type Pass = SyncSessionOptions['pass'];

/** What the session runs: a dry run (reading the user's journal when one is named), or a pass for the user. */
export function passOf(flags: SyncFlags): Pass {
  refuseBothUserFlags(flags);
  if (!flags.user && !flags.email && !flags.dryRun) throw new UsageError('give --user <uuid> or --email <email>');
  if (flags.watch && flags.dryRun)
    throw new UsageError('--watch sends what changes: it cannot be combined with --dry-run');
  if (flags.poll && !flags.watch) throw new UsageError('--poll goes with --watch');
  // Checked before anything is scanned or sent, like every other command's flags.
  const userId = flags.user === undefined ? undefined : parseUserId(flags.user);
  const email = flags.email === undefined ? undefined : parseEmail(flags.email);
  const identity = userId !== undefined ? { userId } : email !== undefined ? { email } : null;
  if (flags.dryRun || identity === null) return { dryRun: true, identity };
  return { dryRun: false, identity, watch: flags.watch ? { poll: flags.poll } : null };
}
