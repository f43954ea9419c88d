import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import type { Command } from 'commander';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CliContext } from '../../src/cli/context.js';
import { createProgram } from '../../src/cli/program.js';
import { appPaths } from '../../src/paths.js';
import { json, startTestServer } from '../client/test-server.js';
import { runCli, useTempHome, type CliRun } from './helpers/run-cli.js';

/*
 * Every hint a support or set-up command prints names only options that exist: a flag quoted
 * with a command (`camroll users forget --email X --base-url U`) must be one of that command's,
 * and a bare flag (`give --user <uuid>`) one of the command that printed it. The hints are
 * collected by running each command into the situation that prints them.
 */

const KEY = 'sk_test_hint_options_4321';
const ID = '3f1c2a8e-4b5d-4c6e-8f90-123456789abc';
const STALE = '9b2d7c1e-0f3a-4e5b-8c6d-abcdefabcdef';
const OTHER = 'http://127.0.0.1:9/v1';

let home: ReturnType<typeof useTempHome>;
let server: Awaited<ReturnType<typeof startTestServer>>;
let base: string;

beforeAll(async () => {
  home = useTempHome();
  server = await startTestServer((req, res) => {
    if (req.url === '/v1/health' && req.headers['x-partner-api-key'] === KEY) {
      json(res, 200, {
        status: 'ok',
        partner_id: 'acme',
        environment: 'production',
        rate_limit: { enabled: false, limit: null, window_seconds: null },
      });
    } else if (req.url === '/v1/ping') json(res, 200, { status: 'ok' });
    else if (req.headers['x-partner-api-key'] !== KEY)
      json(res, 401, { error: { code: 'invalid_api_key', message: 'bad key' } });
    else json(res, 404, { error: { code: 'user_not_found', message: 'no such user' } });
  });
  base = `${server.origin}/v1`;
  const file = join(home.home, 'users.csv');
  writeFileSync(file, `email,user_id\nreal.fan@example.com,${ID}\nstale@example.com,${STALE}\n`);
  await runCli(['users', 'import', file, '--base-url', base]);
  writeFileSync(file, `away@example.com,${ID}\n`);
  await runCli(['users', 'import', file, '--base-url', OTHER]);
  await runCli(['config', 'set-url', OTHER, '--profile', 'elsewhere']);
  await runCli(['config', 'set-url', base, '--profile', 'nokey']);
  mkdirSync(join(home.home, 'config', 'camroll'), { recursive: true });
});
afterAll(async () => {
  await server.close();
  home.cleanup();
});

/** The command a list of words names (`['users', 'forget']`), with the words that named it. */
async function commandOf(words: readonly string[]): Promise<{ path: string[]; command: Command }> {
  const ctx: CliContext = {
    stdin: new PassThrough(),
    stdout: new PassThrough(),
    stderr: new PassThrough(),
    env: {},
    cwd: process.cwd(),
    paths: appPaths(),
    signal: new AbortController().signal,
    stderrIsTTY: false,
    exitCode: 0,
  };
  let command: Command = await createProgram(ctx, ['node', 'camroll', ...words]);
  const path: string[] = [];
  for (const word of words) {
    const sub = command.commands.find((c) => c.name() === word);
    if (sub === undefined) break;
    command = sub;
    path.push(word);
  }
  return { path, command };
}

const FLAG = /(?<![\w-])--[a-z][a-z0-9-]*/g;

/** Every `--flag` the output names, each with the command it must belong to. */
async function namedFlags(argv: string[], run: CliRun): Promise<{ command: string; flag: string; known: boolean }[]> {
  const found: { command: string; flag: string; known: boolean }[] = [];
  const check = async (words: string[], text: string): Promise<void> => {
    const { path, command } = await commandOf(words);
    const known = new Set([...command.options.map((o) => o.long), '--help']);
    for (const flag of text.match(FLAG) ?? []) found.push({ command: path.join(' '), flag, known: known.has(flag) });
  };
  for (const line of `${run.stdout}\n${run.stderr}`.split('\n')) {
    let rest = line;
    for (const [quoted, inner] of line.matchAll(/`([^`]*)`/g)) {
      if (!inner?.startsWith('camroll ')) continue;
      rest = rest.replace(quoted, '');
      await check(inner.split(/\s+/).slice(1), inner);
    }
    await check(argv, rest);
  }
  return found;
}

describe('every hint names options the command has', () => {
  const scenarios: [string, string[], NodeJS.ProcessEnv?][] = [
    ['a typo of a known e-mail', ['stats', '--email', 'real.fna@example.com', '--base-url', 'BASE']],
    ['an e-mail known at another target', ['events', '--email', 'away@example.com', '--base-url', 'BASE']],
    ['an e-mail known nowhere', ['users', 'show', '--email', 'real.fna@example.com', '--base-url', 'BASE']],
    ['a directory entry the service does not know', ['stats', '--email', 'stale@example.com', '--base-url', 'BASE']],
    [
      'a directory entry the service does not know, events',
      ['events', '--email', 'stale@example.com', '--profile', 'nokey'],
      { CAMROLL_API_KEY: KEY },
    ],
    ['neither --user nor --email', ['stats', '--base-url', 'BASE']],
    ['--all with --cursor', ['events', '--user', ID, '--all', '--cursor', 'x', '--base-url', 'BASE']],
    ['a set-url without a version path', ['config', 'set-url', 'https://api.example.com', '--profile', 'prod']],
    ['a set-key for a profile that does not exist', ['config', 'set-key', '--profile', 'prdo']],
    ['a set-key with no profile at all', ['config', 'set-key'], { CAMROLL_PROFILE: 'nope' }],
    ['a named profile without a key', ['stats', '--user', ID, '--profile', 'nokey'], { CAMROLL_API_KEY: '' }],
    ['a wrong key', ['health', '--base-url', 'BASE'], { CAMROLL_API_KEY: 'sk_wrong_0000' }],
    ['a base URL without a version path', ['stats', '--user', ID, '--base-url', 'ORIGIN']],
    ['doctor with no key', ['doctor', '--base-url', 'BASE'], { CAMROLL_API_KEY: '' }],
    ['doctor without a version path', ['doctor', '--base-url', 'ORIGIN']],
    ['config use of a profile without a URL', ['config', 'use', 'nothing']],
  ];

  it.each(scenarios)('%s', async (_name, template, env = {}) => {
    const argv = template.map((word) => word.replace('BASE', base).replace('ORIGIN', server.origin));
    const run = await runCli(argv, { env: { CAMROLL_API_KEY: KEY, ...env }, stdin: '' });
    // A failure, or a warning on stderr (set-url).
    expect(run.code !== 0 || run.stderr !== '', run.stdout).toBe(true);
    const flags = await namedFlags(argv, run);
    expect(
      flags.filter((f) => !f.known),
      `${run.stdout}${run.stderr}`,
    ).toEqual([]);
  });

  it('the hints name the flags that reach the target, and the collector sees them', async () => {
    const other = await runCli(['events', '--email', 'away@example.com', '--base-url', base], {
      env: { CAMROLL_API_KEY: KEY },
    });
    expect(other.stderr).toContain(
      `it is known for ${OTHER} (user ${ID}): add --profile elsewhere (or --base-url ${OTHER})`,
    );
    const stale = await runCli(['stats', '--email', 'stale@example.com', '--base-url', base], {
      env: { CAMROLL_API_KEY: KEY },
    });
    const flags = await namedFlags(['stats'], stale);
    expect(flags).toContainEqual({ command: 'users forget', flag: '--email', known: true });
    expect(flags).toContainEqual({ command: 'users forget', flag: '--base-url', known: true });
    expect(flags).toContainEqual({ command: 'stats', flag: '--user', known: true });
    // A flag the command lacks is caught: `users show` has no --user.
    expect(await namedFlags(['users', 'show'], { code: 1, stdout: '', stderr: 'give --user <uuid>' })).toEqual([
      { command: 'users show', flag: '--user', known: false },
    ]);
  });
});
