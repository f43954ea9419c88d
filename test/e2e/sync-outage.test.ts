import { plural } from '../../src/util/plural.js';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collect, ROOT, runCamroll, spawnCamroll, tempHome, waitForStderr } from './helpers/camroll.js';
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
    const args = [
      'sync',
      lib,
      '--email',
      'outage@example.com',
      '--batch-size',
      '2',
      '--concurrency',
      '1',
      '--base-url',
      serve.baseUrl,
    ];
    // The defaults: 5 connection failures in a row, the client's own retries and backoff.
    const child = spawnCamroll([...args, '-v', '--json'], { env });
    const done = collect(child, 60_000);
    // Kill the service once the first batch was answered (the -v trace says so).
    await waitForStderr(child, done, /POST \S+\/media -> 200/);
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
      `sync stopped: the host stopped answering: 5 connection failures in a row (last: ECONNREFUSED); ` +
        `${plural(summary.pending, 'item')} ${summary.pending === 1 ? 'stays' : 'stay'} pending and the journal is consistent: run the same command again to resume ` +
        `[host_unreachable]`,
    );
    expect(stopped.stderr).not.toContain(KEY);

    // The service comes back on the same address: the rerun sends what was pending and completes.
    const again = await startServe({ env, db, args: ['--port', port] });
    try {
      const rerun = await runCamroll([...args, '--json'], { env });
      expect(rerun.code, rerun.stderr).toBe(0);
      expect(JSON.parse(rerun.stdout)).toMatchObject({
        outcome: 'ok',
        sync_complete: true,
        resumed_pending: summary.pending,
      });
      // The count the stop gave is the one the resume gives.
      expect(rerun.stderr).toMatch(
        new RegExp(
          `resuming an interrupted sync: \\d+ items? already answered are skipped, ` +
            `${plural(summary.pending, 'pending item')} ${summary.pending === 1 ? 'is' : 'are'} sent again`,
        ),
      );
    } finally {
      await again.stop();
    }
  });

  it('while watching: the next change after the host went away ends the watch with the outage summary', async () => {
    const watched = mkdtempSync(join(tmpdir(), 'camroll-lib-'));
    const db = join(home.dir, 'service-watch.db');
    const env = { ...home.env, CAMROLL_API_KEY: KEY };
    const serve = await startServe({ env, db });
    try {
      generateLibrary({ dir: watched, files: 4, anchorShare: 0, seed: 5, perFolder: 4 });
      const child = spawnCamroll(
        ['sync', watched, '--email', 'watch-outage@example.com', '--watch', '--json', '--base-url', serve.baseUrl],
        { env },
      );
      const done = collect(child, 90_000);
      await new Promise<void>((resolve, reject) => {
        let seen = '';
        child.stderr!.on('data', (chunk: Buffer) => {
          seen += chunk.toString();
          if (/^camroll: watching 1 folder/m.test(seen)) resolve();
        });
        void done.then(() => reject(new Error(`sync ended before watching: ${seen}`)));
      });
      serve.child.kill('SIGKILL');
      const photo = join(ROOT, 'fixtures', 'library', 'events', 'sao-paulo', 'IMG_5003.jpg');
      mkdirSync(join(watched, 'arrived'));
      copyFileSync(photo, join(watched, 'arrived', 'IMG_5003.jpg'));
      const stopped = await done;
      expect(stopped.code, stopped.stderr).toBe(1);
      const summary = JSON.parse(stopped.stdout) as {
        outcome: string;
        pending: number;
        sync_complete: boolean;
        sent: number;
        watch: Record<string, number>;
      };
      // The pass had completed; the change found no host and stays pending for the next run.
      expect(summary).toMatchObject({ outcome: 'outage', sync_complete: true, sent: 4 });
      // `pending` counts the pass's items, `watch.pending` those of the changes; the message counts both.
      expect(summary.pending).toBe(0);
      expect(summary.watch).toMatchObject({ changes: 1, files: 1, sent: 0, pending: 1 });
      expect(stopped.stderr).toContain('camroll: watch: 1 new or changed file, not sent, 1 item pending');
      expect(stopped.stderr).toContain('1 item stays pending and the journal is consistent');
      expect(stopped.stderr).toContain('[host_unreachable]');
      expect(stopped.stderr).not.toContain(KEY);
    } finally {
      await serve.stop();
      rmSync(watched, { recursive: true, force: true });
    }
  }, 90_000);
});
