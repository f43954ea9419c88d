import { spawn, spawnSync } from 'node:child_process';
import { BIN, collect, type RunResult } from './camroll.js';

/** Whether util-linux `script` is here to give the binary a real terminal. */
export const HAS_SCRIPT = spawnSync('script', ['--version'], { stdio: 'ignore' }).status === 0;

/**
 * Runs camroll to its end on a pseudo-terminal of `columns` columns (stdout and stderr both the
 * terminal, as a user has them); `output` is what the terminal received.
 */
export async function runOnTerminal(
  args: string[],
  env: NodeJS.ProcessEnv,
  columns = 80,
): Promise<RunResult & { output: string }> {
  const command = [process.execPath, BIN, ...args].map((a) => `'${a.replaceAll("'", "'\\''")}'`).join(' ');
  const child = spawn('script', ['-qec', `stty cols ${columns} rows 24; exec ${command}`, '/dev/null'], {
    env: { ...env, TERM: 'xterm' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const result = await collect(child, 120_000);
  return { ...result, output: result.stdout };
}
