import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collect, runCamroll, spawnCamroll } from './helpers/camroll.js';
import { startFaultProxy, type FaultOptions, type FaultProxy } from './helpers/fault-proxy.js';
import { type SyncEnv, useSyncLibrary } from './helpers/sync-env.js';

const ARGS = ['--batch-size', '8', '--concurrency', '2', '--json'];
type Hold = NonNullable<FaultOptions['hold']>;

describe('camroll sync resumes after SIGKILL and Ctrl-C', () => {
  let env: SyncEnv;
  // One proxy for the whole file: its base URL keys the journal and the remembered users.
  let proxy: FaultProxy;
  let lib: string;
  let cleanEvents: unknown[];
  let cleanUser: string;
  const usersOfOtherTests = new Set<string>();

  useSyncLibrary({ files: 80, anchorShare: 0.2, seed: 31, perFolder: 40 }, (suite) => ({ env, lib } = suite));
  beforeAll(async () => {
    proxy = await startFaultProxy({ target: env.serve.baseUrl });
    const clean = await runCamroll(['sync', lib, '--email', 'clean@example.com', ...ARGS], {
      env: env.clientEnv(env.serve.baseUrl),
    });
    expect(clean.code, clean.stderr).toBe(0);
    cleanUser = (JSON.parse(clean.stdout) as { user_id: string }).user_id;
    cleanEvents = await env.events(cleanUser);
  });
  afterAll(async () => {
    await proxy?.close();
  });

  /** The accepted ids journaled for the user under test (the clean run's journal holds the same ids). */
  const journaled = (): Set<string> =>
    env.journalAccepted((user) => user !== cleanUser && !usersOfOtherTests.has(user));

  /** Runs a sync that the proxy holds at one media request, then signals it. */
  async function interruptAt(email: string, hold: Hold, signal: NodeJS.Signals) {
    const since = proxy.log.length;
    const held = proxy.arm(hold);
    const child = spawnCamroll(['sync', lib, '--email', email, ...ARGS], { env: env.clientEnv(proxy.baseUrl) });
    const done = collect(child, 60_000);
    await Promise.race([held, done.then((r) => Promise.reject(new Error(`sync ended before the hold: ${r.stderr}`)))]);
    child.kill(signal);
    const result = await done;
    proxy.disarm();
    return { result, sent: proxy.forwardedIds(since) };
  }

  async function resume(email: string) {
    const since = proxy.log.length;
    const run = await runCamroll(['sync', lib, '--email', email, ...ARGS], { env: env.clientEnv(proxy.baseUrl) });
    expect(run.code, run.stderr).toBe(0);
    return {
      run,
      sent: proxy.forwardedIds(since),
      summary: JSON.parse(run.stdout) as {
        user_id: string;
        skipped_already_sent: number;
        sent: number;
        resumed_pending: number;
      },
    };
  }

  it('SIGKILL at several points: resumes to the clean state, never re-sending a journaled id', async () => {
    const email = 'killed@example.com';
    const points: Hold[] = [
      { nth: 2, phase: 'before_forward' },
      { nth: 3, phase: 'before_reply' }, // the service committed, the journal did not: that batch is re-sent
      { nth: 4, phase: 'before_forward' },
    ];
    let previous = 0;
    for (const hold of points) {
      const before = journaled();
      const { result, sent } = await interruptAt(email, hold, 'SIGKILL');
      expect(result.signal).toBe('SIGKILL');
      for (const id of sent) expect(before.has(id), `journaled id ${id} was sent again`).toBe(false);
      // A kill never loses what was journaled before it.
      expect(journaled().size).toBeGreaterThanOrEqual(previous);
      previous = journaled().size;
    }
    expect(previous).toBeGreaterThan(0);

    const before = journaled();
    const { run, sent, summary } = await resume(email);
    expect(run.stderr).toContain('resuming');
    for (const id of sent) expect(before.has(id)).toBe(false);
    expect(summary.skipped_already_sent + summary.sent).toBe(80);
    expect(summary.skipped_already_sent).toBeGreaterThanOrEqual(before.size);
    expect(await env.events(summary.user_id)).toEqual(cleanEvents);
    usersOfOtherTests.add(summary.user_id);
  });

  it('Ctrl-C exits 130 with the summary and the journal consistent; the next run resumes what it said was pending', async () => {
    const email = 'interrupted@example.com';
    const { result } = await interruptAt(email, { nth: 3, phase: 'before_forward' }, 'SIGINT');
    expect(result.code, result.stderr).toBe(130);
    expect(result.stderr).toContain(
      'camroll: sync interrupted; the journal is consistent: run the same command again to resume [interrupted]',
    );
    // The summary goes where the result goes: --json gets its document.
    const stopped = JSON.parse(result.stdout) as {
      outcome: string;
      sync_complete: boolean;
      pending: number;
      sent: number;
    };
    expect(stopped).toMatchObject({ outcome: 'interrupted', sync_complete: false });
    // The held batch was sent and never answered.
    expect(stopped.pending).toBeGreaterThanOrEqual(8);
    const before = journaled();
    expect(before.size).toBeGreaterThan(0);

    const { run, sent, summary } = await resume(email);
    for (const id of sent) expect(before.has(id)).toBe(false);
    expect(summary.skipped_already_sent).toBeGreaterThanOrEqual(before.size);
    expect(summary.resumed_pending).toBe(stopped.pending);
    expect(run.stderr).toContain(`${stopped.pending} pending items are sent again`);
    expect(await env.events(summary.user_id)).toEqual(cleanEvents);
  });
});
