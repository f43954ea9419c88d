import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli, useTempHome } from '../helpers/run-cli.js';

let home: ReturnType<typeof useTempHome>;
beforeEach(() => {
  home = useTempHome();
});
afterEach(() => home.cleanup());

describe('camroll doctor on the embedded default', () => {
  it('--round-trip: every check passes; the smoke profile is created once, then reused', async () => {
    const first = await runCli(['doctor', '--round-trip', '--json']);
    expect(first.code).toBe(0);
    const report = JSON.parse(first.stdout) as {
      checks: { name: string; status: string; detail: string }[];
      summary: { ok: boolean; fail: number };
    };
    expect(report.summary).toMatchObject({ ok: true, fail: 0 });
    expect(report.checks.filter((c) => c.status !== 'pass')).toEqual([]);
    expect(report.checks.find((c) => c.name === 'roundtrip.user')?.detail).toMatch(
      /^camroll-doctor@local\.invalid: created /,
    );
    const again = JSON.parse((await runCli(['doctor', '--round-trip', '--json'])).stdout) as typeof report;
    expect(again.checks.find((c) => c.name === 'roundtrip.user')?.detail).toMatch(
      /^camroll-doctor@local\.invalid: reused /,
    );
    // Nothing else was written: the smoke profile has no events.
    expect(again.checks.find((c) => c.name === 'roundtrip.stats')?.status).toBe('pass');
  });

  it('prints a table with a closing count, and exits 1 when a check fails', async () => {
    const ok = await runCli(['doctor']);
    expect(ok.stdout).toMatch(/^CHECK +STATUS +DETAIL$/m);
    expect(ok.stdout).toMatch(/^doctor ok: 9 pass, 0 warn, 0 fail, 0 skip$/m);
    const failing = await runCli(['doctor', '--base-url', 'http://127.0.0.1:9/v1', '--retries', '0']);
    expect(failing.code).toBe(1);
    expect(failing.stdout).toMatch(/^config\.key +fail +no API key$/m);
    expect(failing.stdout).toMatch(/^doctor FAILED: /m);
  });
});
