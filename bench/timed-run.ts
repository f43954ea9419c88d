/**
 * What the scan benches share: a command run to its end and timed, a `camroll scan --json`
 * run with its peak RSS (GNU time, when present), and the figures' formatting.
 */
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';

export interface Timed {
  seconds: number;
  stdout: string;
  stderr: string;
  code: number | null;
}

/** Runs a command to the end and times it (wall clock). */
export function timed(
  command: string,
  args: string[],
  options: { env?: NodeJS.ProcessEnv; cwd?: string } = {},
): Promise<Timed> {
  const started = process.hrtime.bigint();
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      env: options.env ?? process.env,
      cwd: options.cwd,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) =>
      resolve({ seconds: Number(process.hrtime.bigint() - started) / 1e9, stdout, stderr, code }),
    );
  });
}

export interface ScanRun {
  seconds: number;
  peakRssMb: number | null;
  summary: { files: number; media: number; cached: number; bytes: number; errors?: Record<string, number> };
}

/** `camroll scan ARGS --json` by the binary `bin`; exit codes outside `accept` fail the bench. */
export async function scanRun(
  bin: string,
  args: string[],
  options: { env: NodeJS.ProcessEnv; accept?: number[] },
): Promise<ScanRun> {
  const full = [bin, 'scan', ...args, '--json'];
  const run = fs.existsSync('/usr/bin/time')
    ? await timed('/usr/bin/time', ['-v', process.execPath, ...full], { env: options.env })
    : await timed(process.execPath, full, { env: options.env });
  if (!(options.accept ?? [0]).includes(run.code ?? -1)) throw new Error(`scan failed (${run.code}): ${run.stderr}`);
  const rss = /Maximum resident set size \(kbytes\): (\d+)/.exec(run.stderr);
  return {
    seconds: run.seconds,
    peakRssMb: rss ? Number(rss[1]) / 1024 : null,
    summary: JSON.parse(run.stdout) as ScanRun['summary'],
  };
}

/** The faster of two runs, with the higher peak RSS of the two (the peak is a ceiling, not a best). */
export const best = (a: ScanRun | null, b: ScanRun): ScanRun =>
  a === null
    ? b
    : { ...(a.seconds <= b.seconds ? a : b), peakRssMb: Math.max(a.peakRssMb ?? 0, b.peakRssMb ?? 0) || null };

export const mb = (bytes: number): string => (bytes / 1e6).toFixed(0);
export const loadText = (load: number[]): string => load.map((n) => n.toFixed(2)).join(' ');
