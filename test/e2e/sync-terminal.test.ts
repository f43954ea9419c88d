import { spawn, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, collect, ROOT } from './helpers/camroll.js';
import { createSyncEnv, type SyncEnv } from './helpers/sync-env.js';

// util-linux `script` gives the binary a real terminal; without it there is nothing to test.
const hasScript = spawnSync('script', ['--version'], { stdio: 'ignore' }).status === 0;
const LIBRARY = join(ROOT, 'fixtures', 'library');
const ESC = '\u001b[';

const TITLE = 'sync on a terminal';
describe.skipIf(!hasScript)(
  hasScript ? TITLE : `${TITLE} (skipped: needs util-linux script for a pseudo-terminal)`,
  () => {
    let env: SyncEnv;
    beforeAll(async () => {
      env = await createSyncEnv();
    });
    afterAll(async () => {
      await env?.close();
    });

    /** Runs sync on a pseudo-terminal with TERM set; returns everything the terminal showed. */
    async function onTerminal(term: string, email: string): Promise<{ code: number | null; screen: string }> {
      const command = [process.execPath, BIN, 'sync', LIBRARY, '--email', email, '--no-events', '--no-cache']
        .map((a) => `'${a}'`)
        .join(' ');
      const child = spawn('script', ['-qec', command, '/dev/null'], {
        env: { ...env.clientEnv(env.serve.baseUrl), TERM: term },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      const result = await collect(child, 120_000);
      return { code: result.code, screen: result.stdout + result.stderr };
    }

    it('draws bars on a capable terminal, and plain lines only with TERM=dumb', async () => {
      const capable = await onTerminal('xterm', 'tty-bars@example.com');
      expect(capable.code, capable.screen).toBe(0);
      expect(capable.screen).toContain(ESC);

      const dumb = await onTerminal('dumb', 'tty-dumb@example.com');
      expect(dumb.code, dumb.screen).toBe(0);
      expect(dumb.screen).not.toContain(ESC);
      // 50 distinct contents, the edited copy collapsed into its original.
      expect(dumb.screen).toMatch(/^sent: +49 in 1 batch\r?$/m);
    });
  },
);
