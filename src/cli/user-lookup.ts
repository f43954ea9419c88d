import type { UserDirectory } from '../config/index.js';
import { LocalStateError, UsageError } from '../errors.js';
import { openDirectory, targetIdentity, type ConnectionFlags } from './connection.js';
import { parseEmail, parseUserId } from './connection-args.js';
import type { CliContext } from './context.js';
import type { AppPaths } from '../paths.js';

/** Runs `use` with the directory of users known on this machine open, and closes it. */
export async function withDirectory<T>(
  paths: AppPaths,
  use: (directory: UserDirectory) => T | Promise<T>,
): Promise<T> {
  const directory = await openDirectory(paths);
  return Promise.resolve()
    .then(() => use(directory))
    .finally(() => directory.close());
}

/**
 * The error for an e-mail the directory does not hold at a target: it names the ways on, and
 * nothing is created (POST /users is not a lookup).
 */
export function unknownEmail(email: string, target: string): LocalStateError {
  return new LocalStateError(
    'unknown_email',
    `no user with e-mail ${email} is known on this machine for ${target}; give --user <uuid>, ` +
      "or add it with `camroll users import FILE` from the partner's records; " +
      '`camroll users create --email` would create a profile if none exists',
  );
}

/** Looks an `--email` up in the directory for a target: read-only, never creates a user. */
export function userIdForEmail(paths: AppPaths, email: string, target: string): Promise<string> {
  return withDirectory(paths, (directory) => {
    const entry = directory.lookup(target, email);
    if (entry === null) throw unknownEmail(email, target);
    return entry.userId;
  });
}

/**
 * The user a read command is about: `--user` as given, or `--email` looked up in the
 * directory for the command's target (read-only: never POST /users). Exactly one is needed.
 */
export async function userFromFlags(ctx: CliContext, flags: ConnectionFlags & { user?: string; email?: string }): Promise<string> {
  if (flags.user !== undefined && flags.email !== undefined) throw new UsageError('give either --user or --email, not both');
  if (flags.user !== undefined) return parseUserId(flags.user);
  if (flags.email === undefined) throw new UsageError('give --user <uuid>, or --email <email> of a user known on this machine');
  return userIdForEmail(ctx.paths, parseEmail(flags.email), targetIdentity(ctx, flags));
}
