import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root and the real binary the tests run. */
export const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
export const BIN = join(ROOT, 'bin', 'camroll.js');

/** A throwaway home: XDG folders and HOME in a temp dir, so no test touches the real home. */
export function tempHome(prefix = 'camroll-e2e-'): { dir: string; env: NodeJS.ProcessEnv } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: join(dir, 'home'),
    XDG_DATA_HOME: join(dir, 'data'),
    XDG_CACHE_HOME: join(dir, 'cache'),
    XDG_CONFIG_HOME: join(dir, 'config'),
    NO_COLOR: '1',
  };
  for (const key of ['HOME', 'XDG_DATA_HOME', 'XDG_CACHE_HOME', 'XDG_CONFIG_HOME'] as const)
    mkdirSync(env[key]!, { recursive: true });
  return { dir, env };
}

export interface RunResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface SpawnOptions {
  env: NodeJS.ProcessEnv;
  cwd?: string;
  stdin?: string;
  /** Run as this user and group (needs root), e.g. nobody to meet a permission error. */
  as?: { uid: number; gid: number };
  /** Another copy of the binary (one that user can read: see other-user.ts); default BIN. */
  bin?: string;
}

/** Starts the binary; the caller may kill it. With `stdin`, that text is its standard input. */
export function spawnCamroll(args: string[], options: SpawnOptions): ChildProcess {
  const child = spawn(process.execPath, [options.bin ?? BIN, ...args], {
    env: options.env,
    cwd: options.cwd ?? ROOT,
    stdio: [options.stdin === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
    ...(options.as ?? {}),
  });
  if (options.stdin !== undefined) child.stdin?.end(options.stdin);
  return child;
}

/** Collects a started process's output until it exits (bounded by `timeoutMs`). */
export function collect(child: ChildProcess, timeoutMs = 120_000): Promise<RunResult> {
  let stdout = '';
  let stderr = '';
  child.stdout?.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr?.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`camroll did not finish within ${timeoutMs} ms\nstdout: ${stdout}\nstderr: ${stderr}`));
    }, timeoutMs);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });
}

/** Runs the binary to completion. */
export function runCamroll(args: string[], options: SpawnOptions & { timeoutMs?: number }): Promise<RunResult> {
  return collect(spawnCamroll(args, options), options.timeoutMs);
}

/** Resolves with the process's stderr so far once it matches `pattern`; rejects if the process ends first. */
export function waitForStderr(child: ChildProcess, done: Promise<RunResult>, pattern: RegExp): Promise<string> {
  return new Promise((resolve, reject) => {
    let seen = '';
    const onData = (chunk: Buffer | string): void => {
      seen += chunk.toString();
      if (pattern.test(seen)) {
        child.stderr!.off('data', onData);
        resolve(seen);
      }
    };
    child.stderr!.on('data', onData);
    void done.then((r) => reject(new Error(`camroll ended (${r.code}) before ${pattern}: ${r.stderr}`)));
  });
}
