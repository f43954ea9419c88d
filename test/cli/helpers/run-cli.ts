import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, type Readable } from 'node:stream';
import type { CliContext } from '../../../src/cli/context.js';
import { run } from '../../../src/cli/main.js';
import type { AppPaths } from '../../../src/paths.js';

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

export interface RunCliOptions {
  env?: NodeJS.ProcessEnv;
  /** State folders; default: the current `useTempHome`'s (never the real home's). */
  paths?: AppPaths;
  /** Standard input: a string is piped and closed; a stream is used as is (a fake terminal). */
  stdin?: string | (Readable & { isTTY?: boolean });
  signal?: AbortSignal;
}

/** The state folders of the temp home in use (see `useTempHome`): runCli's default. */
let tempPaths: AppPaths | null = null;

/**
 * Runs one camroll invocation in this process, as `bin/camroll.js` would, with captured
 * output. Its state folders are `paths`, or the current `useTempHome`'s: without either it
 * refuses to run, rather than resolve the real home's folders from the environment.
 */
export async function runCli(args: string[], options: RunCliOptions = {}): Promise<CliRun> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  stdout.on('data', (c: Buffer) => (out += c.toString()));
  stderr.on('data', (c: Buffer) => (err += c.toString()));
  let stdin: Readable & { isTTY?: boolean };
  if (typeof options.stdin === 'string' || options.stdin === undefined) {
    const piped = new PassThrough();
    piped.end(options.stdin ?? '');
    stdin = piped;
  } else stdin = options.stdin;
  const ctx: CliContext = {
    stdin,
    stdout,
    stderr,
    env: options.env ?? {},
    paths: options.paths ?? tempPaths ?? noHome(),
    cwd: process.cwd(),
    signal: options.signal ?? new AbortController().signal,
    stderrIsTTY: false,
    exitCode: 0,
  };
  const code = await run(ctx, ['node', 'camroll', ...args]);
  return { code, stdout: out, stderr: err };
}

function noHome(): never {
  throw new Error('runCli needs useTempHome() (or paths): a test never writes to the real home');
}

/**
 * A fresh temp folder as camroll's home: its state folders (laid out as on Linux:
 * `config/camroll`, `data/camroll`, `cache/camroll`) become runCli's default until the cleanup.
 * Set explicitly, not through XDG_* (which env-paths ignores on macOS and Windows).
 */
export function useTempHome(): { home: string; paths: AppPaths; cleanup: () => void } {
  const home = mkdtempSync(join(tmpdir(), 'camroll-cli-'));
  const paths: AppPaths = {
    config: join(home, 'config', 'camroll'),
    data: join(home, 'data', 'camroll'),
    cache: join(home, 'cache', 'camroll'),
  };
  tempPaths = paths;
  return {
    home,
    paths,
    cleanup: () => {
      if (tempPaths === paths) tempPaths = null;
      rmSync(home, { recursive: true, force: true });
    },
  };
}
