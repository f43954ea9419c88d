import type { ChildProcess } from 'node:child_process';
import { collect, spawnCamroll, type RunResult } from './camroll.js';

export interface ServeHandle {
  baseUrl: string;
  child: ChildProcess;
  /** SIGTERM, then the exit result. */
  stop(): Promise<RunResult>;
}

/**
 * Starts `camroll serve --port 0 --db FILE` (or `--database URL`) on 127.0.0.1 and waits for its
 * `listening on <base_url>` line (bounded).
 */
export async function startServe(options: {
  env: NodeJS.ProcessEnv;
  db?: string;
  databaseUrl?: string;
  args?: string[];
  timeoutMs?: number;
}): Promise<ServeHandle> {
  const store =
    options.databaseUrl !== undefined
      ? ['--database', options.databaseUrl]
      : options.db !== undefined
        ? ['--db', options.db]
        : [];
  const child = spawnCamroll(['serve', '--host', '127.0.0.1', '--port', '0', ...store, ...(options.args ?? [])], {
    env: options.env,
  });
  const done = collect(child, 30 * 60_000);
  const baseUrl = await new Promise<string>((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`serve did not start: ${out}`)), options.timeoutMs ?? 30_000);
    child.stdout!.on('data', (d: Buffer | string) => {
      out += d.toString();
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    });
    let err = '';
    child.stderr!.on('data', (d: Buffer | string) => (err += d.toString()));
    child.on('close', (code) => {
      clearTimeout(timer);
      reject(new Error(`serve exited with ${code} before listening: ${out}${err}`));
    });
  });
  return {
    baseUrl,
    child,
    stop: async () => {
      child.kill('SIGTERM');
      return done;
    },
  };
}
