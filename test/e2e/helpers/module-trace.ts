import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { runCamroll, type RunResult } from './camroll.js';

/** The packages a run of the real binary loaded (by folder under node_modules), and its result. */
export async function packagesLoaded(
  args: string[],
  options: { env: NodeJS.ProcessEnv; dir: string },
): Promise<{ packages: Set<string>; result: RunResult }> {
  const trace = join(options.dir, `modules-${Date.now()}-${Math.random().toString(36).slice(2)}.txt`);
  const register = pathToFileURL(join(import.meta.dirname, 'module-trace-register.mjs')).href;
  const result = await runCamroll(args, {
    env: { ...options.env, NODE_OPTIONS: `--import=${register}`, CAMROLL_TEST_MODULE_TRACE: trace },
  });
  let urls: string[] = [];
  try {
    urls = readFileSync(trace, 'utf8').split('\n');
  } catch {
    // Nothing loaded past the hook: an empty set, which the caller's assertions will show.
  }
  const packages = new Set(
    urls.flatMap((url) => {
      const match = /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url);
      return match ? [match[1]!] : [];
    }),
  );
  return { packages, result };
}
