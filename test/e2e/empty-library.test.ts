import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCamroll } from './helpers/camroll.js';
import { createSyncEnv, type SyncEnv } from './helpers/sync-env.js';

describe('an empty library', () => {
  let env: SyncEnv;
  let lib: string;

  beforeAll(async () => {
    env = await createSyncEnv();
    lib = mkdtempSync(join(tmpdir(), 'camroll-empty-'));
  });
  afterAll(async () => {
    await env?.close();
    if (lib) rmSync(lib, { recursive: true, force: true });
  });

  it('scans to a zero summary with exit 0', async () => {
    const run = await runCamroll(['scan', lib, '--json'], { env: env.clientEnv(env.serve.baseUrl) });
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ files: 0, media: 0 });
  });

  it('is taken for an unmounted drive: no sync-complete, exit 1, and the summary says why', async () => {
    const run = await runCamroll(['sync', lib, '--email', 'empty@example.com', '--json'], {
      env: env.clientEnv(env.serve.baseUrl),
    });
    expect(run.code).toBe(1);
    const summary = JSON.parse(run.stdout) as {
      sent: number;
      sync_complete: boolean;
      outcome: string;
      not_examined: string;
      stats: { has_synced: boolean };
    };
    expect(summary).toMatchObject({ sent: 0, sync_complete: false, outcome: 'not_examined' });
    expect(summary.not_examined).toContain(
      'no media file was found under the given folders (an unmounted drive or share?)',
    );
    expect(summary.stats).toMatchObject({ has_synced: false });
    expect(run.stderr).toContain('camroll: sync-complete was not called: no media file was found');
    expect(run.stderr).toContain('--allow-empty');
    // The human summary says it too, on stdout.
    const human = await runCamroll(['sync', lib, '--email', 'empty@example.com', '--no-events'], {
      env: env.clientEnv(env.serve.baseUrl),
    });
    expect(human.code).toBe(1);
    expect(human.stdout).toMatch(
      /^sync-complete: +not called: no media file was found under the given folders \(an unmounted drive or share\?\)/m,
    );
  });

  it('with --allow-empty, syncs nothing but completes the pass, so the service knows the library was examined', async () => {
    const run = await runCamroll(['sync', lib, '--email', 'empty@example.com', '--json', '--allow-empty'], {
      env: env.clientEnv(env.serve.baseUrl),
    });
    expect(run.code, run.stderr).toBe(0);
    const summary = JSON.parse(run.stdout) as {
      sent: number;
      sync_complete: boolean;
      events: unknown[];
      stats: { has_synced: boolean; total_events: number };
    };
    expect(summary).toMatchObject({ sent: 0, sync_complete: true, events: [] });
    expect(summary.stats).toMatchObject({ has_synced: true, total_events: 0 });
  });
});
