import { plural } from '../format/vocabulary.js';
import type { Command } from 'commander';
import { readRateLimit, type HealthResult } from '../../client/index.js';
import { isLocalService } from '../../rules/base-url.js';
import { addConnectionOptions, withConnection, type ConnectionFlags, type ConnectionTarget } from '../connection.js';
import { emit, jsonLine } from '../output/emit.js';
import type { CliContext } from '../context.js';

interface HealthFlags extends ConnectionFlags {
  json?: boolean;
}

/** The warning the contract calls for: sandbox users are real profiles. */
export const SANDBOX_WARNING =
  'camroll: warning: this is a sandbox key; the sandbox runs on the production dataset, so users it creates are real ' +
  'profiles';

/** `camroll ping` (no key needed) and `camroll health` (checks the key). */
export function registerPing(program: Command, ctx: CliContext): void {
  const ping = program.command('ping').description('Check that the base URL answers (no key needed)');
  addConnectionOptions(ping).action(async (flags: ConnectionFlags) => {
    await withConnection({ ctx, flags, requireKey: false }, async ({ client, target }) => {
      await client.ping({ signal: ctx.signal });
      // The embedded service was announced on stderr; its port is throwaway, so none is shown.
      ctx.stdout.write(
        target.kind === 'remote' ? `ok: ${target.baseUrl} answered\n` : 'ok: the in-process local service answered\n',
      );
    });
  });

  const health = program
    .command('health')
    .description('Check the key: partner, environment and rate limit')
    .option('--json', "print the service's health object");
  addConnectionOptions(health).action(async (flags: HealthFlags) => {
    await withConnection({ ctx, flags }, async ({ client, target }) => {
      const result = await client.health({ signal: ctx.signal });
      if (flags.json) ctx.stdout.write(jsonLine(result));
      else ctx.stdout.write(describeHealth(result, target));
      const warning = healthWarning(result, target);
      if (warning !== null) emit(ctx.stderr, `${warning}\n`);
    });
  });
}

/**
 * The sandbox warning, for a sandbox key on a remote host only: the embedded service's key, and
 * a `camroll serve` on this machine's, write to a local database, never a real profile.
 */
export function healthWarning(
  result: Pick<HealthResult, 'environment'>,
  target: Pick<ConnectionTarget, 'kind' | 'baseUrl'>,
): string | null {
  const local = isLocalService(target);
  return result.environment === 'sandbox' && !local ? SANDBOX_WARNING : null;
}

/** Human lines for a health answer. */
export function describeHealth(result: HealthResult, target: Pick<ConnectionTarget, 'kind' | 'baseUrl'>): string {
  const policy = readRateLimit(result.rate_limit);
  let limit: string;
  if (policy === null) limit = JSON.stringify(result.rate_limit ?? null);
  else if (!policy.enabled) limit = 'not throttled';
  else
    limit = `${policy.limit === null ? '? requests' : plural(policy.limit, 'request')} per ${policy.window_seconds ?? '?'} s`;
  // The embedded service is named on stderr when it starts; its throwaway port is no place to connect to.
  const where = target.kind === 'remote' ? [`base URL     ${target.baseUrl}`] : [];
  return [
    ...where,
    `partner      ${result.partner_id}`,
    `environment  ${result.environment}`,
    `rate limit   ${limit}`,
    '',
  ].join('\n');
}
