import type { Command } from 'commander';
import type { UserCreateRequest } from '../../contract/index.js';
import { addConnectionOptions, withConnection, type ConnectionFlags } from '../connection.js';
import { jsonLine, parseEmail } from '../connection-args.js';
import type { CliContext } from '../context.js';

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

/** `camroll users create`: POST /users (idempotent on e-mail). */
export function registerUsers(program: Command, ctx: CliContext): void {
  const users = program.command('users').description('Manage service users');
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
    await withConnection({ ctx, flags }, async ({ client, store, target }) => {
      const created = await client.createUser(body, { signal: ctx.signal });
      // Remembered so `sync --email` does not need to create the user again.
      store.rememberUser({ target: target.identity, email: body.email, userId: created.user_id });
      if (flags.json) {
        ctx.stdout.write(jsonLine(created));
        return;
      }
      const state = created.existing ? 'existing user' : 'created user';
      ctx.stdout.write(`${state} ${created.user_id} (${body.email}, created ${created.created_at})\n`);
    });
  });
}
