import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/**
 * Builds dist/ once before the suite, so end-to-end tests run the real compiled binary.
 * tsc emits even when it reports type errors; those fail `npm run typecheck`, which
 * `npm test` runs first, so here a failing build only stops the suite when nothing was emitted.
 */
let built = false;

export default function setup(): void {
  // Both e2e projects (SQLite and PostgreSQL) name this setup; build once per run.
  if (built) return;
  built = true;
  const root = fileURLToPath(new URL('..', import.meta.url));
  try {
    execFileSync('npx', ['tsc', '-p', 'tsconfig.build.json'], { cwd: root, stdio: 'pipe' });
  } catch (error) {
    if (!existsSync(`${root}dist/cli/main.js`)) throw error;
    process.stderr.write('warning: build reported type errors; running tests on what it emitted\n');
  }
}
