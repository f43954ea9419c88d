import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join, relative } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli, useTempHome } from '../helpers/run-cli.js';

const LIBRARY = join(import.meta.dirname, '..', '..', '..', 'fixtures', 'library');
let home: ReturnType<typeof useTempHome>;
beforeEach(() => {
  home = useTempHome();
});
afterEach(() => home.cleanup());

const summaryOf = (stdout: string) =>
  JSON.parse(stdout) as { sent: number; scan_errors: number; events: unknown[]; stats: unknown };

describe('sync takes the scan options', () => {
  it('--exclude leaves out what scan --exclude leaves out', async () => {
    const all = summaryOf((await runCli(['sync', LIBRARY, '--dry-run', '--json'])).stdout);
    const scanned = await runCli(['scan', LIBRARY, '--exclude', 'broken', '--exclude', 'travel/**', '--json']);
    const synced = await runCli([
      'sync',
      LIBRARY,
      '--dry-run',
      '--json',
      '--exclude',
      'broken',
      '--exclude',
      'travel/**',
      '--no-cache',
      '--workers',
      '1',
    ]);
    expect(synced.code).toBe(0);
    const filtered = summaryOf(synced.stdout);
    expect(filtered.scan_errors).toBe(0);
    expect(all.scan_errors).toBeGreaterThan(0);
    expect(filtered.sent).toBeLessThan(all.sent);
    // The same filter: as many items as the scan found media (sync sends a duplicate once), but
    // what the scan counts as left out or collapsed into its pair.
    const scan = JSON.parse(scanned.stdout) as {
      duplicates: { distinct_ids: number };
      left_out: Record<string, { files: number }>;
    };
    const leftOut = Object.values(scan.left_out).reduce((sum, count) => sum + count.files, 0);
    expect(leftOut).toBe(1); // the edited copy beside its original
    expect(filtered.sent).toBe(scan.duplicates.distinct_ids - leftOut);
  });

  it('with several folders, the report names files relative to the current folder, as scan does', async () => {
    const report = join(home.home, 'several-roots.jsonl');
    const roots = [join(LIBRARY, 'broken'), join(LIBRARY, 'misc')];
    const result = await runCli(['sync', ...roots, '--dry-run', '--json', '--report', report]);
    expect(result.code).toBe(0);
    const lines = readFileSync(report, 'utf8')
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as { type: string; path: string });
    const under = (root: string) => lines.filter((line) => line.path.startsWith(`${relative(process.cwd(), root)}/`));
    expect(under(roots[0]!).map((line) => line.type)).toEqual(expect.arrayContaining(['scan_error']));
    expect(under(roots[1]!).map((line) => line.type)).toEqual(expect.arrayContaining(['rejected']));
    expect(under(roots[0]!).length + under(roots[1]!).length).toBe(lines.length);
    for (const line of lines) expect(existsSync(join(process.cwd(), line.path)), line.path).toBe(true);
  });

  it('--user and --email together are refused as events and stats refuse them, before anything is read', async () => {
    const id = '3f1c2a8e-4b5d-4c6e-8f90-123456789abc';
    for (const args of [['sync', LIBRARY, '--dry-run'], ['events'], ['stats']]) {
      const result = await runCli([...args, '--user', id, '--email', 'both@example.com']);
      expect(result.code, args[0]).toBe(2);
      expect(result.stderr, args[0]).toContain('give either --user or --email, not both');
    }
  });

  it('--workers is checked like scan checks it', async () => {
    const result = await runCli(['sync', LIBRARY, '--dry-run', '--workers', '0']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--workers must be a whole number from 1 to 64, not "0"');
  });
});

describe('sync for automation', () => {
  it('--json is one document, indented like every --json, with the elapsed time', async () => {
    const result = await runCli(['sync', LIBRARY, '--dry-run', '--json']);
    expect(result.stdout).toBe(`${JSON.stringify(JSON.parse(result.stdout), null, 2)}\n`);
    expect(JSON.parse(result.stdout)).toMatchObject({ dry_run: true, elapsed_ms: expect.any(Number) });
  });

  it('--no-events skips reading and printing the history', async () => {
    const result = await runCli(['sync', LIBRARY, '--email', 'no-events@example.com', '--no-events']);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^user [0-9a-f-]{36} \(full pass, the embedded local service\)$/m);
    expect(result.stdout).toMatch(/^elapsed: +\d+\.\d s$/m);
    expect(result.stdout).not.toContain('Events (');
    expect(result.stdout).not.toContain('Library synced');
    const json = summaryOf(
      (await runCli(['sync', LIBRARY, '--email', 'no-events@example.com', '--no-events', '--json'])).stdout,
    );
    expect(json).toMatchObject({ events: [], stats: null });
  });

  it(
    '--quiet prints the summary and warnings only: no notices, no progress; the created profile is in the summary ' +
      'and --json',
    async () => {
      const result = await runCli(['sync', LIBRARY, '--email', 'quiet@example.com', '--quiet']);
      expect(result.code).toBe(0);
      const lines = result.stderr.trimEnd().split('\n');
      // Where the data goes is a warning: not the service a base URL would name.
      expect(lines).toEqual([
        expect.stringMatching(/^camroll: no base URL configured; using the embedded local service/),
      ]);
      expect(result.stdout).toMatch(
        /^user [0-9a-f-]{36} \(full pass, the embedded local service\)\nprofile: +created by this run \(in the embedded local service\)\n/,
      );
      expect(result.stdout).not.toContain('Events (');
      const json = await runCli(['sync', LIBRARY, '--email', 'quiet-json@example.com', '--quiet', '--json']);
      expect(json.code).toBe(0);
      expect(json.stderr.trimEnd().split('\n')).toHaveLength(1);
      expect(JSON.parse(json.stdout)).toMatchObject({ user_created: true, scan_errors: 4, unreadable: 0, damaged: 4 });
      const again = await runCli(['sync', LIBRARY, '--email', 'quiet-json@example.com', '--quiet', '--json']);
      expect(JSON.parse(again.stdout)).toMatchObject({ user_created: false });
    },
  );

  it('--user <id> neither reads nor creates the directory of users known on this machine', async () => {
    const first = await runCli(['sync', join(LIBRARY, 'misc'), '--email', 'by-id@example.com', '--no-events']);
    expect(first.code).toBe(0);
    const userId = /^user ([0-9a-f-]{36}) /m.exec(first.stdout)?.[1];
    expect(userId).toBeDefined();
    const directory = join(home.paths.data, 'users.sqlite3');
    expect(existsSync(directory)).toBe(true);
    rmSync(directory);
    const result = await runCli(['sync', join(LIBRARY, 'misc'), '--user', userId as string, '--no-events']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`user ${userId} `);
    expect(existsSync(directory)).toBe(false);
  });

  it('--no-progress keeps notices as plain lines', async () => {
    const result = await runCli(['sync', LIBRARY, '--email', 'plain@example.com', '--no-progress']);
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(/^camroll: full pass for user /m);
    expect(result.stderr).not.toMatch(/sent \d+\/|\d+ items\/s/);
    // The history is the events table of `camroll events` and the stats view of `camroll stats`.
    expect(result.stdout).toMatch(
      /^elapsed: +\d+\.\d s\nsync-complete: +called \(the whole library was examined; 4 files were read but are damaged\)\n\nEvents \(6, newest first\)\nDATE +EVENT +VENUE +CITY +MEDIA$/m,
    );
    expect(result.stdout).toMatch(/^Events +6 \(4 concerts, 2 sports\)$/m);
    expect(result.stdout).toMatch(/^Library synced +yes$/m);
    expect(result.stdout).toContain('\nVenues most visited\n');
    expect(result.stdout).toContain('\nEvents per year\n');
  });
});

describe('sync --log-file', () => {
  it('appends timestamped notices, progress and the outcome, in a file of mode 0600, never the key', async () => {
    const { readFileSync, statSync, writeFileSync, chmodSync } = await import('node:fs');
    const file = join(home.home, 'sync.log');
    writeFileSync(file, 'an earlier run\n');
    chmodSync(file, 0o644);
    const result = await runCli(['sync', LIBRARY, '--email', 'logged@example.com', '--log-file', file, '--quiet'], {
      env: { CAMROLL_API_KEY: 'sk_test_log_key_never_0001' },
    });
    expect(result.code).toBe(0);
    const text = readFileSync(file, 'utf8');
    const lines = text.trimEnd().split('\n');
    expect(lines[0]).toBe('an earlier run');
    const stamp = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z /;
    for (const line of lines.slice(1)) expect(line).toMatch(stamp);
    // --quiet keeps the terminal quiet; the log still gets the notices.
    expect(text).toMatch(/Z camroll: full pass for user [0-9a-f-]{36}\n/);
    expect(text).toMatch(/Z camroll: sync ended: outcome ok\n/);
    // 50 distinct contents, the edited copy collapsed into its original.
    expect(text).toMatch(/Z sent: +49 in 1 batch\n/);
    expect(text).not.toContain('sk_test_log_key_never_0001');
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });

  it('--report into a full disk on a real sync: the summary is printed, then a clear error and exit 1', async () => {
    const result = await runCli([
      'sync',
      LIBRARY,
      '--email',
      'full-report@example.com',
      '--report',
      '/dev/full',
      '--no-events',
    ]);
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/^sync-complete: +called/m);
    expect(result.stderr).toContain(
      'camroll: cannot write the report file /dev/full: no space left on the device (ENOSPC) [report_write_failed]',
    );
  });

  it('into a full disk (/dev/full): the summary is still printed, then a clear error and exit 1', async () => {
    const result = await runCli([
      'sync',
      LIBRARY,
      '--email',
      'full-log@example.com',
      '--log-file',
      '/dev/full',
      '--no-events',
    ]);
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/^user [0-9a-f-]{36} \(full pass, the embedded local service\)$/m);
    expect(result.stdout).toMatch(/^sent: +49 in 1 batch$/m);
    expect(result.stderr).toContain(
      'camroll: cannot write the log file /dev/full: no space left on the device (ENOSPC) [log_write_failed]',
    );
  });
});
