import { describe, expect, it } from 'vitest';
import { runCamroll } from './helpers/camroll.js';
import { startFaultProxy } from './helpers/fault-proxy.js';
import type { LibraryFacts } from './helpers/library.js';
import { TEST_KEY, type SyncEnv, useSyncLibrary } from './helpers/sync-env.js';

describe('camroll sync through a faulty network', () => {
  let env: SyncEnv;
  let lib: string;
  let facts: LibraryFacts;
  useSyncLibrary({ files: 100, anchorShare: 0.15, seed: 23, perFolder: 50 }, (suite) => ({ env, lib, facts } = suite));

  it('429s, 500s, resets and slow replies: every item answered once, events identical to a clean run', async () => {
    const clean = await runCamroll(['sync', lib, '--email', 'clean@example.com', '--batch-size', '10', '--json'], {
      env: env.clientEnv(env.serve.baseUrl),
    });
    expect(clean.code, clean.stderr).toBe(0);
    const cleanUser = (JSON.parse(clean.stdout) as { user_id: string }).user_id;

    const proxy = await startFaultProxy({
      target: env.serve.baseUrl,
      seed: 5,
      // Every kind early on for sure, then a seeded share of each.
      sequence: ['throttle', 'none', 'error500', 'none', 'reset', 'none', 'reset_after', 'slow'],
      shares: { throttle: 0.1, error500: 0.1, reset: 0.1, reset_after: 0.1, slow: 0.1 },
      slowMs: 200,
    });
    try {
      const run = await runCamroll(
        ['sync', lib, '--email', 'faulty@example.com', '--batch-size', '10', '--concurrency', '4', '--json'],
        {
          env: env.clientEnv(proxy.baseUrl),
        },
      );
      expect(run.code, run.stderr).toBe(0);
      const summary = JSON.parse(run.stdout) as {
        user_id: string;
        sent: number;
        accepted: number;
        failed_batches: number;
      };
      const rejected = facts.missingCoordinates + facts.missingTakenAt;
      expect(summary).toMatchObject({ sent: 100, accepted: 100 - rejected, failed_batches: 0 });

      // The faults really happened, and retries followed them.
      const faults = new Set(proxy.log.map((e) => e.fault));
      for (const f of ['throttle', 'error500', 'reset', 'reset_after', 'slow']) expect(faults).toContain(f);
      expect(run.stderr).toContain('retrying');
      // Each id reached the client in exactly one delivered 200 response.
      const delivered = proxy.log.filter((e) => e.delivered && e.status === 200).flatMap((e) => e.ids);
      expect(delivered).toHaveLength(100);
      expect(new Set(delivered).size).toBe(100);

      const strip = (events: unknown[]): unknown => JSON.parse(JSON.stringify(events));
      expect(strip(await env.events(summary.user_id))).toEqual(strip(await env.events(cleanUser)));
      expect(`${run.stdout}${run.stderr}`).not.toContain(TEST_KEY);
    } finally {
      await proxy.close();
    }
  });
});
