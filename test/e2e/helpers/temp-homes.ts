import { rmSync } from 'node:fs';
import { afterAll } from 'vitest';
import { tempHome } from './camroll.js';

// Not in camroll.ts: bench/sync.ts imports that module outside vitest, where importing vitest throws.

/**
 * Registers the removal, after the file's tests, of every throwaway home the returned factory
 * makes (see tempHome). Call it at the top of a file or a describe: the removal then runs after
 * that scope's other afterAll hooks, once its servers have stopped.
 */
export function useTempHomes(prefix?: string): () => ReturnType<typeof tempHome> {
  const dirs: string[] = [];
  afterAll(() => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });
  return () => {
    const made = tempHome(prefix);
    dirs.push(made.dir);
    return made;
  };
}
