import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, useTempHome, type CliRun } from './helpers/run-cli.js';

/*
 * The command-line surface of docs/contract/product-decisions.md §1 that needs no process: help, usage errors
 * and their exit codes, run in-process through run(ctx, argv). The real binary keeps what
 * needs one (signals, stdin, pipes, serve): test/e2e.
 */

const FIXTURES = join(import.meta.dirname, '..', '..', 'fixtures', 'library');
const UUID = '3f1c2a8e-4b5d-4c6e-8f90-123456789abc';
const KEY = 'sk_test_surface_never_printed_Q7rT2vX9';
const ENV = { CAMROLL_BASE_URL: 'http://127.0.0.1:9/v1', CAMROLL_API_KEY: KEY };

let home: ReturnType<typeof useTempHome>;
beforeAll(() => {
  home = useTempHome();
});
afterAll(() => home.cleanup());

/** No stack trace or raw exception anywhere a partner would look, and never the key. */
function expectNoCrash(result: CliRun): void {
  const text = result.stdout + result.stderr;
  expect(text).not.toMatch(/^\s+at .+[:(]/m);
  expect(text).not.toMatch(/\b(TypeError|ReferenceError|RangeError|ZodError|Unhandled|node:internal)\b/);
  expect(text).not.toContain(KEY);
}

describe('every command takes --help', () => {
  const commands = [
    [],
    ['scan'],
    ['sync'],
    ['users'],
    ['users', 'create'],
    ['events'],
    ['stats'],
    ['ping'],
    ['health'],
    ['serve'],
    ['config'],
    ['config', 'set-url'],
    ['config', 'set-key'],
    ['config', 'unset-key'],
    ['config', 'show'],
    ['config', 'list'],
    ['config', 'use'],
    ['config', 'remove'],
    ['config', 'path'],
    ['openapi'],
  ];
  it.each(commands.map((c) => [c.join(' ') || '(none)', c] as const))(
    '%s --help: exit 0, help on stdout only, no key flag',
    async (_name, words) => {
      const result = await runCli([...words, '--help']);
      expect(result.code).toBe(0);
      expect(result.stderr).toBe('');
      expect(result.stdout).toMatch(new RegExp(`^Usage: camroll${words.length > 0 ? ` ${words.join(' ')}` : ''}\\b`));
      // The key is never a flag value: no --api-key, --key, --token or --secret anywhere.
      expect(result.stdout).not.toMatch(/--(api-?key|key|token|secret)\b/);
    },
  );

  it.each([[[]], [['users']], [['config']], [['help', 'nope']]])(
    'help shown because a command is missing (%j) is a usage error: exit 2, on stderr',
    async (words) => {
      const result = await runCli(words);
      expect(result.code).toBe(2);
      expect(result.stdout).toBe('');
      expect(result.stderr).toMatch(/Usage: camroll/);
    },
  );
});

describe('usage errors exit 2 with nothing on stdout', () => {
  const lib = FIXTURES;
  it.each([
    ['sync: --batch-size abc', ['sync', lib, '--email', 'a@example.com', '--batch-size', 'abc']],
    ['sync: --batch-size 1.5', ['sync', lib, '--email', 'a@example.com', '--batch-size', '1.5']],
    ['sync: --concurrency 0', ['sync', lib, '--email', 'a@example.com', '--concurrency', '0']],
    ['sync: a --user that is not a UUID', ['sync', lib, '--user', 'not-a-uuid']],
    ['sync: a bad --email', ['sync', lib, '--email', 'not-an-email']],
    ['sync: no folder', ['sync', '--email', 'a@example.com']],
    ['sync: a folder that does not exist', ['sync', join(lib, 'nowhere'), '--email', 'a@example.com']],
    ['sync: an unknown flag', ['sync', lib, '--email', 'a@example.com', '--frobnicate']],
    ['events: --limit 101', ['events', '--user', UUID, '--limit', '101']],
    ['events: --limit 0', ['events', '--user', UUID, '--limit', '0']],
    ['events: --limit ten', ['events', '--user', UUID, '--limit', 'ten']],
    ['events: --limit with no value', ['events', '--user', UUID, '--limit']],
    ['events: --all with --cursor', ['events', '--user', UUID, '--all', '--cursor', 'abc']],
    ['events: no --user', ['events']],
    ['events: a --user that is not a UUID', ['events', '--user', 'not-a-uuid']],
    ['stats: a --user that is not a UUID', ['stats', '--user', '42']],
    ['stats: no --user', ['stats']],
    ['users create: no --email', ['users', 'create']],
    ['users create: a bad --email', ['users', 'create', '--email', 'nope']],
    ['users create: an unknown flag', ['users', 'create', '--email', 'a@example.com', '--nickname', 'x']],
    ['health: an unknown flag', ['health', '--verbose-ish']],
    ['ping: a bad --base-url', ['ping', '--base-url', 'not a url']],
    ['serve: --port 70000', ['serve', '--port', '70000']],
    ['serve: --port abc', ['serve', '--port', 'abc']],
    ['serve: --ingest-threads 65', ['serve', '--ingest-threads', '65']],
    ['serve: --ingest-threads two', ['serve', '--ingest-threads', 'two']],
    ['config set-key: the key as an argument', ['config', 'set-key', KEY]],
    ['config use: a profile that does not exist', ['config', 'use', 'nowhere']],
    ['config set-url: not http(s)', ['config', 'set-url', 'ftp://example.com/v1']],
    ['an unknown command', ['frobnicate']],
    ['--profile naming no stored profile', ['ping', '--profile', 'ghost']],
  ])('%s', async (_name, args) => {
    const result = await runCli(args, { env: ENV });
    expect(result.code, result.stderr).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/^camroll: .+ \[usage_error\]$/m);
    expectNoCrash(result);
  });

  it.each(
    [
      ['scan', FIXTURES],
      ['sync', FIXTURES, '--email', 'a@example.com'],
      ['users', 'create', '--email', 'a@example.com'],
      ['events', '--user', UUID],
      ['stats', '--user', UUID],
      ['ping'],
      ['health'],
      ['serve'],
      ['config', 'show'],
    ].map((words) => [words.join(' '), words] as const),
  )('%s refuses --api-key', async (_name, words) => {
    const result = await runCli([...words, '--api-key', 'sk_from_the_command_line'], { env: ENV });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/unknown option '--api-key'/);
    expect(result.stdout + result.stderr).not.toContain('sk_from_the_command_line');
  });
});
