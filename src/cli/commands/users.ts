import type { Command } from 'commander';
import type { UserCreateRequest } from '../../contract/index.js';
import type { DirectoryEntry } from '../../config/user-directory.js';
import { addConnectionOptions, targetIdentity, withConnection, type ConnectionFlags } from '../connection.js';
import { parseEmail } from '../connection-args.js';
import { emit, jsonLine } from '../output/emit.js';
import { loadImportFile } from '../lazy.js';
import type { CliContext } from '../context.js';
import { renderTable, tableLines, type Column } from '../format/table.js';
import { terminalWidth } from '../format/width.js';
import { unknownEmail, withDirectory, withReader } from '../user-lookup.js';
import { commandConfig } from '../command-config.js';
import { plural } from '../format/vocabulary.js';

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

/** An entry as `--json` prints it (snake_case, like the service's objects). */
const entryJson = (entry: DirectoryEntry) => ({
  email: entry.email,
  user_id: entry.userId,
  target: entry.target,
  first_seen: entry.firstSeen,
  last_seen: entry.lastSeen,
  source: entry.source,
});

/**
 * On a terminal too narrow for the ids and dates, each entry is stacked (its e-mail, then
 * `USER ID …`, `TARGET …`, …): an id is never cut. `--json` holds every value whole.
 */
const ENTRY_COLUMNS: Column<DirectoryEntry>[] = [
  { header: 'E-MAIL', value: (e: DirectoryEntry) => e.email, fit: 'truncate', minWidth: 16 },
  { header: 'USER ID', value: (e: DirectoryEntry) => e.userId },
  { header: 'TARGET', value: (e: DirectoryEntry) => e.target, fit: 'truncate', minWidth: 16 },
  { header: 'FIRST SEEN', value: (e: DirectoryEntry) => e.firstSeen.slice(0, 16).replace('T', ' ') },
  { header: 'LAST SEEN', value: (e: DirectoryEntry) => e.lastSeen.slice(0, 16).replace('T', ' ') },
  { header: 'SOURCE', value: (e: DirectoryEntry) => e.source },
];

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
    await withDirectory(ctx, (directory) =>
      withConnection({ ctx, flags }, async ({ client, target }) => {
        const created = await client.createUser(body, { signal: ctx.signal });
        // Remembered so `--email` finds the user later without writing anything.
        directory.remember({
          target: target.identity,
          email: body.email,
          userId: created.user_id,
          source: created.existing ? 'found' : 'created',
        });
        if (flags.json) {
          ctx.stdout.write(jsonLine(created));
          return;
        }
        const state = created.existing ? 'existing user' : 'created user';
        ctx.stdout.write(`${state} ${created.user_id} (${body.email}, created ${created.created_at})\n`);
      }),
    );
  });

  const list = users
    .command('list')
    .description(
      'List the users known on this machine: e-mail, user id, target, first and last seen (with --base-url or ' +
        '--profile: those of that target only)',
    )
    .option('--json', 'print one JSON array');
  addConnectionOptions(list).action((flags: ConnectionFlags & { json?: boolean }) => {
    // Named like every other command's target; nothing is connected to.
    const target = flags.baseUrl !== undefined || flags.profile !== undefined ? targetIdentity(ctx, flags) : null;
    return withReader(ctx, (all) => {
      const directory = {
        *list(): Generator<DirectoryEntry> {
          for (const entry of all.list()) if (target === null || entry.target === target) yield entry;
        },
      };
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
      // The first row only, its query closed at once so the table's reads can use it.
      const probe = directory.list();
      const empty = probe.next().done === true;
      probe.return?.(undefined);
      if (empty) {
        ctx.stdout.write(
          target === null
            ? 'No users known on this machine. `users create`, `sync --email` and `users import FILE` add them.\n'
            : `No users known on this machine for ${target}.\n`,
        );
        return;
      }
      // Streamed too: the widths from one read of the directory, the lines from a second.
      const width = terminalWidth(ctx.stdout);
      for (const line of tableLines(ENTRY_COLUMNS, () => directory.list(), { width })) ctx.stdout.write(line);
    });
  });

  const show = users
    .command('show')
    .description('Show what this machine knows of an e-mail: its user id at each target')
    .requiredOption('--email <email>', "the user's e-mail")
    .option('--json', 'print one JSON array');
  addConnectionOptions(show).action((flags: ConnectionFlags & { email?: string; json?: boolean }) => {
    const email = parseEmail(flags.email);
    const current = targetIdentity(ctx, flags);
    return withReader(ctx, (directory) => {
      const entries = directory.find(email);
      if (flags.json) {
        ctx.stdout.write(jsonLine(entries.map((e) => ({ ...entryJson(e), current_target: e.target === current }))));
        return;
      }
      if (entries.length === 0)
        throw unknownEmail({ email, target: current, directory, takesUser: false, config: commandConfig(ctx) });
      ctx.stdout.write(
        renderTable(
          [...ENTRY_COLUMNS, { header: '', value: (e) => (e.target === current ? '(current target)' : '') }],
          entries,
          { width: terminalWidth(ctx.stdout) },
        ),
      );
    });
  });

  const importCmd = users
    .command('import')
    .description(
      'Add users to the directory, from a CSV (email,user_id), JSON lines, or the JSON array `users list --json` ' +
        'prints; ' +
        'entries without a target of their own go to the current target',
    )
    .argument(
      '<file>',
      'CSV with e-mail and user id columns (a header is optional), or JSON {"email","user_id"[,"target"]} objects',
    );
  addConnectionOptions(importCmd).action(async (file: string, flags: ConnectionFlags) => {
    const target = targetIdentity(ctx, flags);
    // The first lines of a bad import are shown as they are met; the rest are only counted.
    let problems = 0;
    const problem = (text: string): void => {
      problems += 1;
      if (problems <= PRINTED_IMPORT_PROBLEMS) emit(ctx.stderr, `camroll: warning: ${text}\n`);
    };
    const { readImportFile } = await loadImportFile();
    const blocks = readImportFile(file, target, problem);
    // The first block opens the file: one that cannot be read fails before the directory is opened.
    const counts = { added: 0, updated: 0, unchanged: 0 };
    const targets = new Set<string>();
    let imported = 0;
    try {
      const first = await blocks.next();
      await withDirectory(ctx, async (directory) => {
        for (let block = first; block.done !== true; block = await blocks.next()) {
          const done = directory.rememberAll(block.value);
          counts.added += done.added;
          counts.updated += done.updated;
          counts.unchanged += done.unchanged;
          imported += block.value.length;
          for (const entry of block.value) targets.add(entry.target);
        }
      });
    } finally {
      // Closes the file when the directory failed half way.
      await blocks.return(undefined);
    }
    if (problems > PRINTED_IMPORT_PROBLEMS)
      emit(ctx.stderr, `camroll: … and ${problems - PRINTED_IMPORT_PROBLEMS} more\n`);
    const where = targets.size > 1 ? `${targets.size} targets` : ([...targets][0] ?? target);
    ctx.stdout.write(
      `imported ${plural(imported, 'user')} for ${where}: ${counts.added} added, ${counts.updated} updated, ` +
        `${counts.unchanged} unchanged` +
        `${problems > 0 ? `; ${plural(problems, 'line')} skipped` : ''}\n`,
    );
    if (problems > 0) ctx.exitCode = 1;
  });

  const forget = users
    .command('forget')
    .description(
      'Remove an e-mail from the directory (the current target, or every one with --all-targets); the service is not ' +
        'touched',
    )
    .requiredOption('--email <email>', "the user's e-mail")
    .option('--all-targets', 'forget it at every target');
  addConnectionOptions(forget).action((flags: ConnectionFlags & { email?: string; allTargets?: boolean }) => {
    const email = parseEmail(flags.email);
    const target = flags.allTargets ? undefined : targetIdentity(ctx, flags);
    return withDirectory(ctx, (directory) => {
      const removed = directory.forget(email, target);
      ctx.stdout.write(`forgot ${email} at ${removed} ${removed === 1 ? 'target' : 'targets'}\n`);
    });
  });
}
