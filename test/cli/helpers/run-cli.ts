import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, type Readable } from 'node:stream';
import type { CliContext } from '../../../src/cli/context.js';
import { run } from '../../../src/cli/main.js';
import { appPaths, type AppPaths } from '../../../src/paths.js';

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

export interface RunCliOptions {
  env?: NodeJS.ProcessEnv;
  /** State folders; default: resolved now from this process's XDG variables (see `useTempHome`). */
  paths?: AppPaths;
  /** Standard input: a string is piped and closed; a stream is used as is (a fake terminal). */
  stdin?: string | (Readable & { isTTY?: boolean });
  signal?: AbortSignal;
}

/**
 * Runs one camroll invocation in this process, as `bin/camroll.js` would, with captured
 * output. Each test file runs in its own process (vitest forks), so `useTempHome` may point
 * the XDG folders of this process at a temp folder.
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
    paths: options.paths ?? appPaths(),
    cwd: process.cwd(),
    signal: options.signal ?? new AbortController().signal,
    stderrIsTTY: false,
    exitCode: 0,
  };
  const code = await run(ctx, ['node', 'camroll', ...args]);
  return { code, stdout: out, stderr: err };
}

/** Points this process's XDG folders (config, data, cache) at a fresh temp folder; returns a cleanup. */
export function useTempHome(): { home: string; cleanup: () => void } {
  const home = mkdtempSync(join(tmpdir(), 'camroll-cli-'));
  const saved = { config: process.env.XDG_CONFIG_HOME, data: process.env.XDG_DATA_HOME, cache: process.env.XDG_CACHE_HOME };
  process.env.XDG_CONFIG_HOME = join(home, 'config');
  process.env.XDG_DATA_HOME = join(home, 'data');
  process.env.XDG_CACHE_HOME = join(home, 'cache');
  return {
    home,
    cleanup: () => {
      for (const [name, value] of [
        ['XDG_CONFIG_HOME', saved.config],
        ['XDG_DATA_HOME', saved.data],
        ['XDG_CACHE_HOME', saved.cache],
      ] as const) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
      rmSync(home, { recursive: true, force: true });
    },
  };
}
