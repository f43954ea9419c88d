import type { Command } from 'commander';
import type { UserCreateRequest } from '../../contract/index.js';
import { nearEmails } from '../../config/near-emails.js';
import { createConfigReader } from '../../config/reader.js';
import type { DirectoryEntry, UserDirectory, UserDirectoryReader } from '../../config/user-directory.js';
import { ApiError, LocalStateError, UsageError } from '../../errors.js';
import { addConnectionOptions, openDirectory, readDirectory, targetIdentity, withConnection, type ConnectionFlags } from '../connection.js';
import { jsonLine, parseEmail, parseUserId } from '../connection-args.js';
import type { CliContext } from '../context.js';
import { renderTable } from '../format/table.js';
import { readImportFile } from '../user-import.js';

interface CreateFlags extends ConnectionFlags {
  email?: string;
  partnerUserId?: string;
  firstName?: string;
  lastName?: string;
  phone?: string;
  city?: string;
  region?: string;
  postalCode?: string;
  country?: string;
  json?: boolean;
}

/** Lines of a bad import shown one by one; the rest are counted. */
const PRINTED_IMPORT_PROBLEMS = 20;

/** Builds the POST /users body from the flags, leaving out what was not given. */
export function userRequestFromFlags(flags: CreateFlags): UserCreateRequest {
  const body: UserCreateRequest = { email: parseEmail(flags.email) };
  if (flags.partnerUserId !== undefined) body.partner_user_id = flags.partnerUserId;
  if (flags.firstName !== undefined) body.first_name = flags.firstName;
  if (flags.lastName !== undefined) body.last_name = flags.lastName;
  if (flags.phone !== undefined) body.phone_number = flags.phone;
  const address = { city: flags.city, region: flags.region, postal_code: flags.postalCode, country: flags.country };
  const given = Object.fromEntries(Object.entries(address).filter(([, v]) => v !== undefined));
  if (Object.keys(given).length > 0) body.address = given;
  return body;
}

/**
 * The stderr line when POST /users made a new profile. On a remote host it is a real profile,
 * even with a sandbox key (the sandbox runs on the production dataset); the embedded service's
 * are local.
 */
export function createdUserNotice(userId: string, email: string, kind: 'remote' | 'embedded', environment?: string): string {
  const real =
    kind === 'embedded'
      ? ''
      : environment === 'production'
        ? ' (a real production profile)'
        : ' (a real profile: the sandbox runs on the production dataset)';
  return `created user ${userId} for ${email}${real}`;
}

/** An entry as `--json` prints it (snake_case, like the service's objects). */
const entryJson = (entry: DirectoryEntry) => ({
  email: entry.email,
  user_id: entry.userId,
  target: entry.target,
  first_seen: entry.firstSeen,
  last_seen: entry.lastSeen,
  source: entry.source,
});

const ENTRY_COLUMNS = [
  { header: 'E-MAIL', value: (e: DirectoryEntry) => e.email },
  { header: 'USER ID', value: (e: DirectoryEntry) => e.userId },
  { header: 'TARGET', value: (e: DirectoryEntry) => e.target },
  { header: 'FIRST SEEN', value: (e: DirectoryEntry) => e.firstSeen.slice(0, 16).replace('T', ' ') },
  { header: 'LAST SEEN', value: (e: DirectoryEntry) => e.lastSeen.slice(0, 16).replace('T', ' ') },
  { header: 'SOURCE', value: (e: DirectoryEntry) => e.source },
];

/** Runs `use` with the user directory open, and always closes it. */
async function withDirectory<T>(use: (directory: UserDirectory) => T | Promise<T>): Promise<T> {
  const directory = await openDirectory();
  return Promise.resolve()
    .then(() => use(directory))
    .finally(() => directory.close());
}

/** Runs `use` with the user directory open to read only (nothing created or changed), and always closes it. */
async function withReader<T>(use: (directory: UserDirectoryReader) => T | Promise<T>): Promise<T> {
  const directory = await readDirectory();
  return Promise.resolve()
    .then(() => use(directory))
    .finally(() => directory.close());
}

/**
 * `camroll users`: create a user on the service, and the directory of users known on this
 * machine (list, show, import, forget), which `events`, `stats` and `sync` read for `--email`.
 */
export function registerUsers(program: Command, ctx: CliContext): void {
  const users = program.command('users').description('Service users, and the directory of users known on this machine');
  const create = users
    .command('create')
    .description('Create the service user for an e-mail, or find the existing one')
    .requiredOption('--email <email>', "the user's e-mail (identity within the partner)")
    .option('--partner-user-id <id>', "the partner's own id for the user")
    .option('--first-name <name>')
    .option('--last-name <name>')
    .option('--phone <number>', 'ignored by the service when another profile uses it')
    .option('--city <city>')
    .option('--region <region>')
    .option('--postal-code <code>')
    .option('--country <country>')
    .option('--json', "print the service's response object");
  addConnectionOptions(create).action(async (flags: CreateFlags) => {
    const body = userRequestFromFlags(flags);
    await withDirectory((directory) =>
      withConnection({ ctx, flags }, async ({ client, target }) => {
        const created = await client.createUser(body, { signal: ctx.signal });
        // Remembered so `--email` finds the user later without writing anything.
        directory.remember({ target: target.identity, email: body.email, userId: created.user_id, source: created.existing ? 'found' : 'created' });
        if (flags.json) {
          ctx.stdout.write(jsonLine(created));
          return;
        }
        const state = created.existing ? 'existing user' : 'created user';
        ctx.stdout.write(`${state} ${created.user_id} (${body.email}, created ${created.created_at})\n`);
      }),
    );
  });

  users
    .command('list')
    .description('List the users known on this machine: e-mail, user id, target, first and last seen')
    .option('--json', 'print one JSON array')
    .action((flags: { json?: boolean }) =>
      withReader((directory) => {
        if (flags.json) {
          // Streamed element by element: a support machine may hold an import of many users.
          let first = true;
          ctx.stdout.write('[');
          for (const entry of directory.list()) {
            ctx.stdout.write(`${first ? '\n' : ',\n'}  ${JSON.stringify(entryJson(entry))}`);
            first = false;
          }
          ctx.stdout.write(first ? ']\n' : '\n]\n');
          return;
        }
        const entries = [...directory.list()];
        if (entries.length === 0) {
          ctx.stdout.write('No users known on this machine. `users create`, `sync --email` and `users import FILE` add them.\n');
          return;
        }
        ctx.stdout.write(renderTable(ENTRY_COLUMNS, entries));
      }),
    );

  const show = users
    .command('show')
    .description('Show what this machine knows of an e-mail: its user id at each target')
    .requiredOption('--email <email>', "the user's e-mail")
    .option('--json', 'print one JSON array');
  addConnectionOptions(show).action((flags: ConnectionFlags & { email?: string; json?: boolean }) => {
    const email = parseEmail(flags.email);
    const current = targetIdentity(ctx, flags);
    return withReader((directory) => {
      const entries = directory.find(email);
      if (flags.json) {
        ctx.stdout.write(jsonLine(entries.map((e) => ({ ...entryJson(e), current_target: e.target === current }))));
        return;
      }
      if (entries.length === 0) throw unknownEmail({ email, target: current, directory, takesUser: false });
      ctx.stdout.write(renderTable([...ENTRY_COLUMNS, { header: '', value: (e) => (e.target === current ? '(current target)' : '') }], entries));
    });
  });

  const importCmd = users
    .command('import')
    .description(
      'Add users to the directory, from a CSV (email,user_id), JSON lines, or the JSON array `users list --json` prints; ' +
        'entries without a target of their own go to the current target',
    )
    .argument('<file>', 'CSV with e-mail and user id columns (a header is optional), or JSON {"email","user_id"[,"target"]} objects');
  addConnectionOptions(importCmd).action(async (file: string, flags: ConnectionFlags) => {
    const target = targetIdentity(ctx, flags);
    const problems: string[] = [];
    const entries = await readImportFile(file, target, (problem) => problems.push(problem));
    const counts = await withDirectory((directory) => directory.rememberAll(entries));
    for (const problem of problems.slice(0, PRINTED_IMPORT_PROBLEMS)) ctx.stderr.write(`camroll: warning: ${problem}\n`);
    if (problems.length > PRINTED_IMPORT_PROBLEMS) ctx.stderr.write(`camroll: … and ${problems.length - PRINTED_IMPORT_PROBLEMS} more\n`);
    const targets = new Set(entries.map((entry) => entry.target));
    const where = targets.size > 1 ? `${targets.size} targets` : ([...targets][0] ?? target);
    ctx.stdout.write(
      `imported ${entries.length} users for ${where}: ${counts.added} added, ${counts.updated} updated, ${counts.unchanged} unchanged` +
        `${problems.length > 0 ? `; ${problems.length} lines skipped` : ''}\n`,
    );
    if (problems.length > 0) ctx.exitCode = 1;
  });

  const forget = users
    .command('forget')
    .description('Remove an e-mail from the directory (the current target, or every one with --all-targets); the service is not touched')
    .requiredOption('--email <email>', "the user's e-mail")
    .option('--all-targets', 'forget it at every target');
  addConnectionOptions(forget).action((flags: ConnectionFlags & { email?: string; allTargets?: boolean }) => {
    const email = parseEmail(flags.email);
    const target = flags.allTargets ? undefined : targetIdentity(ctx, flags);
    return withDirectory((directory) => {
      const removed = directory.forget(email, target);
      ctx.stdout.write(`forgot ${email} at ${removed} ${removed === 1 ? 'target' : 'targets'}\n`);
    });
  });
}

/** What `unknownEmail` needs to say where the e-mail is known, or what was meant. */
export interface UnknownEmailInput {
  email: string;
  target: string;
  directory: UserDirectoryReader;
  /** Whether the command takes `--user` (events, stats), so the hint may offer it. */
  takesUser: boolean;
}

/**
 * The error for an e-mail the directory does not hold at a target: where else this machine knows
 * it, or the e-mails there it may be a typo of, then the ways on. Nothing is created (POST
 * /users is not a lookup). Every option a hint names is one the reading commands have.
 */
export function unknownEmail({ email, target, directory, takesUser }: UnknownEmailInput): LocalStateError {
  const hints: string[] = [];
  const elsewhere = directory.find(email).filter((entry) => entry.target !== target);
  if (elsewhere.length > 0) {
    const profiles = storedProfilesByUrl();
    for (const entry of elsewhere.slice(0, 3)) hints.push(`it is known for ${entry.target} (user ${entry.userId}): ${reachTarget(entry.target, profiles)}`);
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
function storedProfilesByUrl(): Map<string, string> {
  const byUrl = new Map<string, string>();
  try {
    for (const [name, profile] of Object.entries(createConfigReader().read().profiles)) {
      if (profile.base_url !== undefined && !byUrl.has(profile.base_url)) byUrl.set(profile.base_url, name);
    }
  } catch {
    // The hint then names the URL; the configuration's own error comes from the command that reads it.
  }
  return byUrl;
}

/** How a command reaches a target: the flag to add. */
function reachTarget(target: string, profiles: Map<string, string>): string {
  if (target.startsWith('embedded:')) return 'that is the embedded local service: run with no --base-url or --profile (and no CAMROLL_BASE_URL)';
  const profile = profiles.get(target);
  return profile === undefined ? `add --base-url ${target}` : `add --profile ${profile} (or --base-url ${target})`;
}

/** Looks an `--email` up in the directory for a target: read-only (not even last seen changes), never creates a user. */
export function userIdForEmail(email: string, target: string): Promise<string> {
  return withReader((directory) => {
    const entry = directory.get(target, email);
    if (entry === null) throw unknownEmail({ email, target, directory, takesUser: true });
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
export async function userFromFlags(ctx: CliContext, flags: ConnectionFlags & { user?: string; email?: string }): Promise<ResolvedUser> {
  if (flags.user !== undefined && flags.email !== undefined) throw new UsageError('give either --user or --email, not both');
  if (flags.user !== undefined) return { userId: parseUserId(flags.user), entry: null };
  if (flags.email === undefined) throw new UsageError('give --user <uuid>, or --email <email> of a user known on this machine');
  const email = parseEmail(flags.email);
  const target = targetIdentity(ctx, flags);
  return { userId: await userIdForEmail(email, target), entry: { email, target } };
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
  return new ApiError(error.status, error.code, `${error.message} (user ${user.userId}, this machine's entry for ${user.entry.email})`, {
    request: error.request,
    cause: error,
    details: {
      ...error.details,
      hint:
        `this machine's directory holds a user id the service does not know under this key: ` +
        `drop the entry with \`${words.join(' ')}\`, then add the right one (\`camroll users import FILE\` or --user <uuid>)`,
    },
  });
}

