import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCamroll } from './helpers/camroll.js';
import { startFaultProxy } from './helpers/fault-proxy.js';
import { type SyncEnv, useSyncLibrary } from './helpers/sync-env.js';

describe('pending items and filters, as later runs see them', () => {
  let env: SyncEnv;
  let lib: string;
  useSyncLibrary({ files: 30, anchorShare: 0.2, seed: 17, perFolder: 10 }, (suite) => ({ env, lib } = suite));

  it('files deleted after their batch failed leave no pending notice once a pass completes', async () => {
    // Every request before the first media POST passes; that one gets a 500, and with
    // --retries 0 its batch fails and stays pending.
    const proxy = await startFaultProxy({
      target: env.serve.baseUrl,
      sequence: ['none', 'none', 'none', 'error500'],
      maxFaultsPerRequest: 1,
    });
    const report = join(env.dir, 'failed.jsonl');
    const args = ['sync', lib, '--email', 'deleted@example.com', '--batch-size', '5', '--concurrency', '1', '--json'];
    // Every run goes through the proxy: its base URL keys the journal.
    const clientEnv = env.clientEnv(proxy.baseUrl);
    try {
      const failed = await runCamroll([...args, '--retries', '0', '--report', report], { env: clientEnv });
      expect(failed.code, failed.stderr).toBe(1);
      expect(proxy.log.filter((e) => e.fault === 'error500' && e.ids.length > 0)).toHaveLength(1);
      const summary = JSON.parse(failed.stdout) as { outcome: string; failed_batches: number; pending: number };
      expect(summary).toMatchObject({ outcome: 'failed', failed_batches: 1, pending: 5 });
      const lines = readFileSync(report, 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as { type: string; path: string })
        .filter((l) => l.type === 'failed');
      expect(lines).toHaveLength(5);
      // The files of the failed batch are deleted before the next run.
      for (const line of lines) rmSync(join(lib, line.path));

      const second = await runCamroll(args, { env: clientEnv });
      expect(second.code, second.stderr).toBe(0);
      expect(second.stderr).toContain(
        'resuming an interrupted sync: 25 items already answered are skipped, 5 pending items are sent again',
      );
      // The pending ones are gone from the disk: nothing to send, and the pass completes.
      expect(JSON.parse(second.stdout)).toMatchObject({
        outcome: 'ok',
        files: 25,
        sent: 0,
        skipped_already_sent: 25,
        sync_complete: true,
      });

      const third = await runCamroll(args, { env: clientEnv });
      expect(third.code, third.stderr).toBe(0);
      expect(third.stderr).not.toContain('resuming');
      expect(third.stderr).not.toContain('pending');
      expect(JSON.parse(third.stdout)).toMatchObject({ resumed_pending: 0, sent: 0, skipped_already_sent: 25 });
    } finally {
      await proxy.close();
    }
  });

  it('--exclude leaves out what scan --exclude leaves out', async () => {
    const scan = await runCamroll(['scan', lib, '--exclude', 'roll-0001', '--json'], {
      env: env.clientEnv(env.serve.baseUrl),
    });
    const scanned = JSON.parse(scan.stdout) as { files: number };
    const run = await runCamroll(
      ['sync', lib, '--email', 'excluded@example.com', '--exclude', 'roll-0001', '--json', '--no-events'],
      {
        env: env.clientEnv(env.serve.baseUrl),
      },
    );
    expect(run.code, run.stderr).toBe(0);
    const summary = JSON.parse(run.stdout) as { files: number; sent: number };
    // roll-0001 held ten files; what the first test deleted came from anywhere.
    const all = JSON.parse(
      (await runCamroll(['scan', lib, '--json'], { env: env.clientEnv(env.serve.baseUrl) })).stdout,
    ) as { files: number };
    expect(summary.files).toBe(scanned.files);
    expect(summary.sent).toBe(scanned.files);
    expect(all.files - scanned.files).toBeGreaterThan(0);
    expect(all.files - scanned.files).toBeLessThanOrEqual(10);
  });
});
