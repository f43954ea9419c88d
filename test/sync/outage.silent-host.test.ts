import { errors, MockAgent } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { createClient, type RequestTrace } from '../../src/client/index.js';
import { InterruptedError } from '../../src/errors.js';
import { createOutageTracker, DEFAULT_MAX_CONNECTION_FAILURES } from '../../src/sync/outage.js';

/*
 * How long a sync waits for a silent host before its outage stop, at the defaults: the real
 * client (its retry policy and timeout cap) and the real tracker, wired as the sync wires
 * them, against a host that lets every request time out. Time is virtual: each attempt costs
 * the timeout it would wait, each backoff its delay. The real wait, with a silent socket, is
 * test/e2e/network-faults.test.ts.
 */
const ORIGIN = 'https://silent.example';
const agents: MockAgent[] = [];
afterEach(async () => {
  while (agents.length > 0) await agents.pop()?.close();
});

/** A host whose every request ends in undici's headers timeout. */
function silentHost(): MockAgent {
  const agent = new MockAgent();
  agent.disableNetConnect();
  agent
    .get(ORIGIN)
    .intercept({ path: () => true, method: () => true })
    .replyWithError(new errors.HeadersTimeoutError())
    .persist();
  agents.push(agent);
  return agent;
}

/** Runs `calls` at once against the silent host as a sync would; the virtual time at the outage stop. */
async function untilOutage(
  timeoutMs: number,
  calls: number,
): Promise<{ elapsedMs: number; attempts: number; reason: string | null; errors: unknown[] }> {
  let clock = 0;
  let attempts = 0;
  let sleeps = 0;
  let reason: string | null = null;
  const outage = new AbortController();
  const tracker = createOutageTracker(DEFAULT_MAX_CONNECTION_FAILURES);
  const client = createClient({
    baseUrl: `${ORIGIN}/v1`,
    apiKey: 'sk_test_silent',
    dispatcher: silentHost(),
    timeoutMs,
    // Worst case of the jitter: the longest backoff the policy allows.
    random: () => 0.999,
    sleep: async (ms, signal) => {
      if (signal?.aborted) throw new InterruptedError();
      sleeps += 1;
      if (sleeps % calls === 1 || calls === 1) clock += ms;
    },
    now: () => clock,
    onRequest: (trace: RequestTrace) => {
      attempts += 1;
      // The attempt waited its whole timeout. Calls in flight wait side by side, in step
      // (the same backoff each): a wave of them costs one timeout.
      if (attempts % calls === 1 || calls === 1) clock += timeoutMs;
      const verdict = tracker.observe({ ...trace, durationMs: timeoutMs });
      if (verdict.stop && reason === null) {
        reason = verdict.reason;
        outage.abort();
      }
    },
  });
  const results = await Promise.allSettled(
    Array.from({ length: calls }, (_, i) =>
      i === 0 ? client.health({ signal: outage.signal }) : client.stats(`u-${i}`, { signal: outage.signal }),
    ),
  );
  return {
    elapsedMs: clock,
    attempts,
    reason,
    errors: results.map((r) => (r.status === 'rejected' ? r.reason : null)),
  };
}

describe('a silent host ends a sync as an outage', () => {
  it('at the defaults (30 s timeout), the start-up /health stops the sync after two timeouts: within 2 minutes', async () => {
    const { elapsedMs, attempts, reason, errors: failures } = await untilOutage(30_000, 1);
    expect(attempts).toBe(2);
    expect(elapsedMs).toBeGreaterThanOrEqual(60_000);
    expect(elapsedMs).toBeLessThan(120_000);
    expect(reason).toMatch(
      /^the host stopped answering: no answer within 30 s, 2 times in a row \(last: GET https:\/\/silent\.example\/v1\/health, UND_ERR_HEADERS_TIMEOUT\)/,
    );
    // An interruption, which the sync turns into its outage stop (not a failed batch).
    expect(failures[0]).toBeInstanceOf(InterruptedError);
  });

  it('with four requests in flight, the stop comes no later, and no request is tried a third time', async () => {
    const { elapsedMs, attempts, reason, errors: failures } = await untilOutage(30_000, 4);
    expect(attempts).toBeLessThanOrEqual(8);
    expect(elapsedMs).toBeLessThan(120_000);
    expect(reason).not.toBeNull();
    for (const failure of failures) expect(failure).toBeInstanceOf(InterruptedError);
  });

  it('with --timeout 2, within 30 s', async () => {
    const { elapsedMs } = await untilOutage(2_000, 1);
    expect(elapsedMs).toBeLessThan(30_000);
  });
});
