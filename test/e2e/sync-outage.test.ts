import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collect, runCamroll, spawnCamroll, tempHome } from './helpers/camroll.js';
import { generateLibrary } from './helpers/library.js';
import { startServe } from './helpers/serve.js';

const KEY = 'sk_test_outage_0001';

describe('the host going away mid-sync', () => {
  const home = tempHome();
  let lib: string;
  beforeAll(() => {
    lib = mkdtempSync(join(tmpdir(), 'camroll-lib-'));
    generateLibrary({ dir: lib, files: 40, anchorShare: 0.2, seed: 9, perFolder: 20 });
  });
  afterAll(() => {
    rmSync(lib, { recursive: true, force: true });
    rmSync(home.dir, { recursive: true, force: true });
  });

  it('stops within about 10 s with the summary and the pending count; a rerun resumes those items and finishes', async () => {
    const db = join(home.dir, 'service.db');
    const env = { ...home.env, CAMROLL_API_KEY: KEY };
    const serve = await startServe({ env, db });
    const port = new URL(serve.baseUrl).port;
    const args = ['sync', lib, '--email', 'outage@example.com', '--batch-size', '2', '--concurrency', '1', '--base-url', serve.baseUrl];
    // The defaults: 5 connection failures in a row, the client's own retries and backoff.
    const child = spawnCamroll([...args, '-v', '--json'], { env });
    const done = collect(child, 60_000);
    // Kill the service once the first batch was answered (the -v trace says so).
    await new Promise<void>((resolve, reject) => {
      let seen = '';
      child.stderr!.on('data', (chunk: Buffer) => {
        seen += chunk.toString();
        if (/POST \S+\/media -> 200/.test(seen)) resolve();
      });
      void done.then(() => reject(new Error(`sync ended before a batch was answered: ${seen}`)));
    });
    serve.child.kill('SIGKILL');
    const killedAt = Date.now();
    const stopped = await done;
    // The bound is about 10 s; 20 s leaves room for a loaded machine.
    expect(Date.now() - killedAt).toBeLessThan(20_000);
    expect(stopped.code, stopped.stderr).toBe(1);
    expect(stopped.stdout, stopped.stderr).not.toBe('');
    const summary = JSON.parse(stopped.stdout) as { outcome: string; pending: number; sync_complete: boolean };
    expect(summary).toMatchObject({ outcome: 'outage', sync_complete: false });
    expect(summary.pending).toBeGreaterThan(0);
    expect(stopped.stderr).toContain(
      `sync stopped: the host stopped answering: 5 connection failures in a row (last: ECONNREFUSED); ${summary.pending} items stay pending and the journal is consistent: run the same command again to resume [host_unreachable]`,
    );
    expect(stopped.stderr).not.toContain(KEY);

    // The service comes back on the same address: the rerun sends what was pending and completes.
    const again = await startServe({ env, db, args: ['--port', port] });
    try {
      const rerun = await runCamroll([...args, '--json'], { env });
      expect(rerun.code, rerun.stderr).toBe(0);
      expect(JSON.parse(rerun.stdout)).toMatchObject({ outcome: 'ok', sync_complete: true, resumed_pending: summary.pending });
      // The count the stop gave is the one the resume gives.
      expect(rerun.stderr).toMatch(new RegExp(`resuming an interrupted sync: \\d+ items already answered are skipped, ${summary.pending} pending items are sent again`));
    } finally {
      await again.stop();
    }
  });
});
