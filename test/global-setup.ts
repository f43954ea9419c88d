import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** Builds dist/ once before the suite, so end-to-end tests run the real compiled binary. */
export default function setup(): void {
  const root = fileURLToPath(new URL('..', import.meta.url));
  execFileSync('npx', ['tsc', '-p', 'tsconfig.build.json'], { cwd: root, stdio: 'inherit' });
}
