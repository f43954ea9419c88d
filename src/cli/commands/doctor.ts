import type { Command } from 'commander';
// Not the config barrel: doctor only reads, and conf is loaded to write.
import { resolveSettings } from '../../config/resolve.js';
import { summarize, type Check } from '../../doctor/check.js';
import { runDoctor, type SettingSource } from '../../doctor/run-doctor.js';
import { commandConfig } from '../command-config.js';
import { addConnectionOptions, withConnection, type ConnectionFlags } from '../connection.js';
import { jsonLine } from '../output/emit.js';
import type { CliContext } from '../context.js';
import { EXIT_FAILURE } from '../exit.js';
import { renderTable } from '../format/table.js';
import { hangingLines, terminalWidth } from '../format/width.js';

interface DoctorFlags extends ConnectionFlags {
  roundTrip?: boolean;
  json?: boolean;
}

/** `camroll doctor`: do the configured host and key work, and does the service keep the contract? */
export function registerDoctor(program: Command, ctx: CliContext): void {
  const cmd = program
    .command('doctor')
    .description('Check the configuration, the host, the key, the clock and the contract, as a table of named checks')
    .option(
      '--round-trip',
      'also create (once) the smoke profile camroll-doctor@<partner>.invalid and send one batch that retains nothing',
    )
    .option('--json', 'print {checks, summary} as one JSON object');
  addConnectionOptions(cmd).action(async (flags: DoctorFlags) => {
    const store = commandConfig(ctx);
    const settings = resolveSettings({ flags, env: ctx.env, store });
    // A missing key is a failed check here, not an error that hides the other checks.
    await withConnection({ ctx, flags, requireKey: false, store }, async (connection) => {
      const embedded = connection.target.kind === 'embedded';
      const source = (value: SettingSource): SettingSource => (embedded ? 'embedded' : value);
      const checks = await runDoctor({
        target: {
          kind: connection.target.kind,
          baseUrl: connection.target.baseUrl,
          apiKey: connection.apiKey,
          baseUrlSource: source(settings.baseUrl.source),
          apiKeySource: source(settings.apiKey.source),
        },
        roundTrip: flags.roundTrip === true,
        ...(flags.timeout !== undefined ? { timeoutMs: flags.timeout * 1000 } : {}),
      });
      const summary = summarize(checks);
      ctx.stdout.write(
        flags.json ? jsonLine({ checks, summary }) : renderDoctor(checks, summary, terminalWidth(ctx.stdout)),
      );
      if (!summary.ok) ctx.exitCode = EXIT_FAILURE;
    });
  });
}

/** The table of checks, each hint under it, and a closing count. */
export function renderDoctor(
  checks: Check[],
  summary: ReturnType<typeof summarize>,
  width: number | null = null,
): string {
  // On a terminal the detail wraps at words within its column, and each hint under its own start.
  const table = renderTable(
    [
      { header: 'CHECK', value: (c: Check) => c.name },
      { header: 'STATUS', value: (c: Check) => c.status },
      { header: 'DETAIL', value: (c: Check) => c.detail, fit: 'wrap', minWidth: 24 },
    ],
    checks,
    { width },
  );
  const hints = checks
    .filter((c) => c.hint !== undefined)
    .map((c) => hangingLines(`  ${c.name}: `, c.hint as string, width));
  const verdict = summary.ok ? 'ok' : 'FAILED';
  const counts =
    `doctor ${verdict}: ${summary.pass} pass, ${summary.warn} warn, ${summary.fail} fail, ` + `${summary.skip} skip`;
  return [table.trimEnd(), ...(hints.length > 0 ? ['', ...hints] : []), '', counts, ''].join('\n');
}
