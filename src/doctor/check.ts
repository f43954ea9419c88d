/** How one doctor check came out. `skip`: a check it depends on failed first. */
export type CheckStatus = 'pass' | 'warn' | 'fail' | 'skip';

/**
 * One named check: what was found, and for a warning or failure what to do about it. A failure
 * always says what to do: the type holds every check to it.
 */
export type Check = {
  /** Stable name (`config.base_url`, `reach.ping`, `key.health`, …). */
  name: string;
  detail: string;
} & ({ status: Exclude<CheckStatus, 'fail'>; hint?: string } | { status: 'fail'; hint: string });

/** Counts per status, and whether the whole run passed (no failure; warnings allowed). */
export function summarize(checks: readonly Check[]): {
  pass: number;
  warn: number;
  fail: number;
  skip: number;
  ok: boolean;
} {
  const counts = { pass: 0, warn: 0, fail: 0, skip: 0 };
  for (const check of checks) counts[check.status] += 1;
  return { ...counts, ok: counts.fail === 0 };
}

/** The first issue of a failed schema check, as `member: message`. */
export function firstIssue(error: { issues: ReadonlyArray<{ path: PropertyKey[]; message: string }> }): string {
  const issue = error.issues[0];
  if (issue === undefined) return 'invalid';
  const where = issue.path.length > 0 ? issue.path.map(String).join('.') : '(root)';
  return `${where}: ${issue.message}`;
}
