import { nearEmails } from '../config/near-emails.js';
import type { ConfigReader } from '../config/reader.js';
import type { UserDirectory, UserDirectoryReader } from '../config/user-directory.js';
import { ApiError, LocalStateError, UsageError } from '../errors.js';
import { openDirectory, readDirectory, targetIdentity, type ConnectionFlags } from './connection.js';
import { commandConfig } from './command-config.js';
import { parseEmail, parseUserId, refuseBothUserFlags } from './connection-args.js';
import type { CliContext } from './context.js';

/** Runs `use` on what `open` gives, and always closes it. */
async function withOpened<D extends { close(): void }, T>(
  open: Promise<D>,
  use: (directory: D) => T | Promise<T>,
): Promise<T> {
  const directory = await open;
  return Promise.resolve()
    .then(() => use(directory))
    .finally(() => directory.close());
}

/** Runs `use` with the user directory open, and always closes it. */
export function withDirectory<T>(ctx: CliContext, use: (directory: UserDirectory) => T | Promise<T>): Promise<T> {
  return withOpened(openDirectory(ctx), use);
}

/** Runs `use` with the user directory open to read only (nothing created or changed), and always closes it. */
export function withReader<T>(ctx: CliContext, use: (directory: UserDirectoryReader) => T | Promise<T>): Promise<T> {
  return withOpened(readDirectory(ctx), use);
}

/** What `unknownEmail` needs to say where the e-mail is known, or what was meant. */
export interface UnknownEmailInput {
  email: string;
  target: string;
  directory: UserDirectoryReader;
  /** The stored configuration (the command's reader), to name a profile rather than a URL. */
  config: ConfigReader;
  /** Whether the command takes `--user` (events, stats), so the hint may offer it. */
  takesUser: boolean;
}

/**
 * The error for an e-mail the directory does not hold at a target: where else this machine knows
 * it, or the e-mails there it may be a typo of, then the ways on. Nothing is created (POST
 * /users is not a lookup). Every option a hint names is one the reading commands have.
 */
export function unknownEmail({ email, target, directory, takesUser, config }: UnknownEmailInput): LocalStateError {
  const hints: string[] = [];
  const elsewhere = directory.find(email).filter((entry) => entry.target !== target);
  if (elsewhere.length > 0) {
    const profiles = storedProfilesByUrl(config);
    for (const entry of elsewhere.slice(0, 3))
      hints.push(`it is known for ${entry.target} (user ${entry.userId}): ${reachTarget(entry.target, profiles)}`);
  } else {
    const near = nearEmails(email, directory.emailsAt(target));
    if (near.length > 0) hints.push(`did you mean ${near.join(' or ')}? (known on this machine for this target)`);
  }
  hints.push(
    `${takesUser ? 'give --user <uuid>, or ' : ''}add it with \`camroll users import FILE\` from the partner's records; ` +
      '`camroll users create --email` would create a profile if none exists',
  );
  return new LocalStateError('unknown_email', `no user with e-mail ${email} is known on this machine for ${target}`, {
    details: { hint: hints.join('\n') },
  });
}

/** Stored profiles by base URL, to name `--profile NAME` rather than a URL; empty when the file cannot be read. */
function storedProfilesByUrl(config: ConfigReader): Map<string, string> {
  const byUrl = new Map<string, string>();
  try {
    for (const [name, profile] of Object.entries(config.read().profiles)) {
      if (profile.base_url !== undefined && !byUrl.has(profile.base_url)) byUrl.set(profile.base_url, name);
    }
  } catch {
    // The hint then names the URL; the configuration's own error comes from the command that reads it.
  }
  return byUrl;
}

/** How a command reaches a target: the flag to add. */
function reachTarget(target: string, profiles: Map<string, string>): string {
  if (target.startsWith('embedded:'))
    return 'that is the embedded local service: run with no --base-url or --profile (and no CAMROLL_BASE_URL)';
  const profile = profiles.get(target);
  return profile === undefined ? `add --base-url ${target}` : `add --profile ${profile} (or --base-url ${target})`;
}

/**
 * Looks an `--email` up in the directory for a target: read-only (not even last seen changes), never creates a user.
 */
export function userIdForEmail(ctx: CliContext, email: string, target: string): Promise<string> {
  return withReader(ctx, (directory) => {
    const entry = directory.get(target, email);
    if (entry === null) throw unknownEmail({ email, target, directory, takesUser: true, config: commandConfig(ctx) });
    return entry.userId;
  });
}

/** The user a read command is about, and the directory entry it came from (`--email`). */
export interface ResolvedUser {
  userId: string;
  entry: { email: string; target: string } | null;
}

/**
 * The user a read command is about: `--user` as given, or `--email` looked up in the
 * directory for the command's target (read-only: never POST /users). Exactly one is needed.
 */
export async function userFromFlags(
  ctx: CliContext,
  flags: ConnectionFlags & { user?: string; email?: string },
): Promise<ResolvedUser> {
  refuseBothUserFlags(flags);
  if (flags.user !== undefined) return { userId: parseUserId(flags.user), entry: null };
  if (flags.email === undefined)
    throw new UsageError('give --user <uuid>, or --email <email> of a user known on this machine');
  const email = parseEmail(flags.email);
  const target = targetIdentity(ctx, flags);
  return { userId: await userIdForEmail(ctx, email, target), entry: { email, target } };
}

/**
 * A 404 for a user the directory named: the entry is stale (the user was removed, or the id
 * belongs to another key), so the error says how to drop it, with the flags that reach the
 * same target. Any other error is returned as it is.
 */
export function staleEntryError(error: unknown, user: ResolvedUser, flags: ConnectionFlags): unknown {
  if (!(error instanceof ApiError) || error.code !== 'user_not_found' || user.entry === null) return error;
  const words = ['camroll', 'users', 'forget', '--email', user.entry.email];
  if (flags.baseUrl !== undefined) words.push('--base-url', flags.baseUrl);
  if (flags.profile !== undefined) words.push('--profile', flags.profile);
  return new ApiError(
    error.status,
    error.code,
    `${error.message} (user ${user.userId}, this machine's entry for ${user.entry.email})`,
    {
      request: error.request,
      cause: error,
      details: {
        ...error.details,
        hint:
          `this machine's directory holds a user id the service does not know under this key: ` +
          `drop the entry with \`${words.join(' ')}\`, then add the right one (\`camroll users import FILE\` or --user <uuid>)`,
      },
    },
  );
}
