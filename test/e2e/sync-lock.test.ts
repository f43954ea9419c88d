import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collect, runCamroll, spawnCamroll } from './helpers/camroll.js';
import { startFaultProxy, type FaultProxy } from './helpers/fault-proxy.js';
import { type SyncEnv, useSyncLibrary } from './helpers/sync-env.js';

const ARGS = ['--batch-size', '8', '--concurrency', '1', '--json'];

describe('two syncs of the same user to the same target', () => {
  let env: SyncEnv;
  let proxy: FaultProxy;
  let lib: string;
  useSyncLibrary({ files: 24, anchorShare: 0.2, seed: 5, perFolder: 12 }, (suite) => ({ env, lib } = suite));
  beforeAll(async () => {
    proxy = await startFaultProxy({ target: env.serve.baseUrl });
  });
  afterAll(async () => {
    await proxy?.close();
  });

  it('the second refuses at once, naming the first, before touching its journal; afterwards a rerun works', async () => {
    const email = 'locked@example.com';
    // The first sync is held at its first media request, so it is surely still running.
    const held = proxy.arm({ nth: 1, phase: 'before_forward' });
    const first = spawnCamroll(['sync', lib, '--email', email, ...ARGS], { env: env.clientEnv(proxy.baseUrl) });
    const firstDone = collect(first, 60_000);
    await Promise.race([
      held,
      firstDone.then((r) => Promise.reject(new Error(`sync ended before the hold: ${r.stderr}`))),
    ]);

    const second = await runCamroll(['sync', lib, '--email', email, ...ARGS], { env: env.clientEnv(proxy.baseUrl) });
    expect(second.code).toBe(1);
    expect(second.stdout).toBe('');
    expect(second.stderr).toContain(`is in use by process ${first.pid} on `);
    expect(second.stderr).toContain('[locked]');

    proxy.disarm();
    first.kill('SIGINT');
    const firstResult = await firstDone;
    expect(firstResult.code).toBe(130);

    const rerun = await runCamroll(['sync', lib, '--email', email, ...ARGS], { env: env.clientEnv(proxy.baseUrl) });
    expect(rerun.code, rerun.stderr).toBe(0);
    expect(JSON.parse(rerun.stdout)).toMatchObject({ outcome: 'ok', sync_complete: true });
  });
});
