import { loadHtmlReport } from '../lazy.js';
import { plural } from '../format/vocabulary.js';
import { terminalWidth } from '../format/width.js';
import type { Command } from 'commander';
import type { Event } from '../../contract/index.js';
import { UsageError } from '../../errors.js';
import { addConnectionOptions, withConnection, type ConnectionFlags } from '../connection.js';
import { parseLimit } from '../connection-args.js';
import { jsonLine } from '../output/emit.js';
import { HTML_OPTION_HELP } from '../html-option.js';
import type { CliContext } from '../context.js';
import { renderEventsTable } from '../format/events.js';
import { staleEntryError, userFromFlags } from '../user-lookup.js';

export interface EventsFlags extends ConnectionFlags {
  user?: string;
  email?: string;
  limit?: string;
  cursor?: string;
  all?: boolean;
  media: boolean;
  json?: boolean;
  html?: string;
}

/** `camroll events`: a page of the user's matched events, or all of them with --all. */
export function registerEvents(program: Command, ctx: CliContext): void {
  const cmd = program
    .command('events')
    .description("List a user's matched events, newest first")
    .option('--user <uuid>', 'the user id')
    .option('--email <email>', 'a user known on this machine (see `camroll users list`); never creates one')
    .option('--limit <n>', 'events per page, 1 to 100')
    .option('--cursor <cursor>', 'continue from the next_cursor of an earlier page')
    .option('--all', 'follow next_cursor to the last page')
    .option('--no-media', 'leave the media of each event out (lighter)')
    .option('--json', "print the service's page object ({events, total} with --all)")
    .option('--html <file>', `${HTML_OPTION_HELP}: every event, all pages, and the stats`);
  addConnectionOptions(cmd).action(async (flags: EventsFlags) => {
    const user = await userFromFlags(ctx, flags);
    const { userId } = user;
    const limit = parseLimit(flags.limit);
    if (flags.all && flags.cursor !== undefined) {
      // --all starts from the first page; a cursor would silently drop the newest events.
      throw new UsageError('--all and --cursor cannot be combined');
    }
    const includeMedia = flags.media ? undefined : false;
    await withConnection({ ctx, flags }, async ({ client }) => {
      if (flags.html !== undefined)
        await (await loadHtmlReport()).writeUserHtml(flags.html, client, userId, ctx.signal);
      if (flags.all) {
        const events: Event[] = [];
        for await (const event of client.allEvents(userId, { limit, includeMedia, signal: ctx.signal }))
          events.push(event);
        if (flags.json) ctx.stdout.write(jsonLine({ events, total: events.length }));
        else writeHuman(ctx, events, events.length, null);
        return;
      }
      const page = await client.events(userId, { cursor: flags.cursor, limit, includeMedia, signal: ctx.signal });
      if (flags.json) ctx.stdout.write(jsonLine(page));
      else
        writeHuman(
          ctx,
          page.events,
          page.total ?? null,
          page.has_more ? nextPageCommand(userId, page.next_cursor, flags) : null,
        );
    }).catch((error: unknown) => {
      throw staleEntryError(error, user, flags);
    });
  });
}

/** Quotes a word for a POSIX shell when it needs it, so the hint pastes as is. */
function shellWord(word: string): string {
  return /^[A-Za-z0-9@%+=:,./_-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/**
 * The command that fetches the next page: the same user, target and page shape, so it can be
 * pasted as is. Null when there is no next page.
 */
export function nextPageCommand(userId: string, cursor: string | null, flags: EventsFlags): string | null {
  if (cursor === null) return null;
  const words = ['camroll', 'events', '--user', userId, '--cursor', cursor];
  if (flags.baseUrl !== undefined) words.push('--base-url', flags.baseUrl);
  if (flags.profile !== undefined) words.push('--profile', flags.profile);
  if (flags.limit !== undefined) words.push('--limit', flags.limit);
  if (!flags.media) words.push('--no-media');
  return words.map(shellWord).join(' ');
}

function writeHuman(ctx: CliContext, events: Event[], total: number | null, nextCommand: string | null): void {
  if (events.length === 0) {
    ctx.stdout.write('No matched events.\n');
    return;
  }
  ctx.stdout.write(renderEventsTable(events, terminalWidth(ctx.stdout)));
  const counted = total === null ? plural(events.length, 'event') : `${events.length} of ${plural(total, 'event')}`;
  ctx.stdout.write(`\n${counted}\n`);
  if (nextCommand !== null) ctx.stdout.write(`More: ${nextCommand}  (or --all)\n`);
}
