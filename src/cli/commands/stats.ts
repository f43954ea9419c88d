import { loadHtmlReport } from '../lazy.js';
import type { Command } from 'commander';
import { addConnectionOptions, withConnection, type ConnectionFlags } from '../connection.js';
import { jsonLine } from '../output/emit.js';
import { HTML_OPTION_HELP } from '../html-option.js';
import type { CliContext } from '../context.js';
import { eventYear, renderStats } from '../format/stats.js';
import { staleEntryError, userFromFlags } from '../user-lookup.js';

interface StatsFlags extends ConnectionFlags {
  user?: string;
  email?: string;
  json?: boolean;
  html?: string;
}

/** `camroll stats`: the user's profile statistics, with a per-year chart for humans. */
export function registerStats(program: Command, ctx: CliContext): void {
  const cmd = program
    .command('stats')
    .description("Show a user's statistics")
    .option('--user <uuid>', 'the user id')
    .option('--email <email>', 'a user known on this machine (see `camroll users list`); never creates one')
    .option('--json', "print the service's stats object")
    .option('--html <file>', `${HTML_OPTION_HELP}: the stats and every event`);
  addConnectionOptions(cmd).action(async (flags: StatsFlags) => {
    const user = await userFromFlags(ctx, flags);
    const { userId } = user;
    await withConnection({ ctx, flags }, async ({ client }) => {
      if (flags.html !== undefined)
        await (await loadHtmlReport()).writeUserHtml(flags.html, client, userId, ctx.signal);
      const stats = await client.stats(userId, { signal: ctx.signal });
      if (flags.json) {
        ctx.stdout.write(jsonLine(stats));
        return;
      }
      // The chart needs every event's year; media are left out to keep the pages light.
      const years: number[] = [];
      if (stats.total_events > 0) {
        for await (const event of client.allEvents(userId, { includeMedia: false, limit: 100, signal: ctx.signal })) {
          years.push(eventYear(event.starts_at_local));
        }
      }
      ctx.stdout.write(renderStats(stats, years));
    }).catch((error: unknown) => {
      throw staleEntryError(error, user, flags);
    });
  });
}
