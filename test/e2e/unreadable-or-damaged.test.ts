import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createNobodyLibrary, nobodySkipReason, type NobodyLibrary } from './helpers/nobody-library.js';

// Root reads every folder whatever its mode: the binary runs as nobody to meet EACCES, from a
// copy of the binary nobody can read wherever the checkout sits (nobody-library.ts).
const skipReason = nobodySkipReason();

const TITLE = 'unreadable (not read at all) and damaged (read, unusable) are told apart everywhere';
describe.skipIf(skipReason !== null)(skipReason === null ? TITLE : `${TITLE} (skipped: ${skipReason})`, () => {
  let library: NobodyLibrary;
  let dir: string;
  let lib: string;
  const runCamroll = (args: string[], options: { env?: NodeJS.ProcessEnv } = {}) => library.run(args, options);

  beforeAll(async () => {
    library = await createNobodyLibrary({ prefix: 'camroll-vocabulary-', damaged: true });
    ({ dir, lib } = library);
  });
  afterAll(async () => {
    await library?.close();
  });

  const reportOf = (file: string): Record<string, unknown>[] =>
    readFileSync(file, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);

  it('sync: the summary, --json and --report; the report lists the unreadable folder as scan --report does', async () => {
    const report = join(dir, 'home', 'sync.jsonl');
    const run = await runCamroll(['sync', lib, '--email', 'words@example.com', '--no-events', '--report', report]);
    expect(run.code, run.stderr).toBe(1);
    expect(run.stdout).toMatch(/^files: +3 \(1 with metadata, 1 unreadable, 1 damaged, 0 duplicates\)$/m);
    const lines = reportOf(report);
    expect(lines).toContainEqual({
      type: 'warning',
      path: 'locked',
      code: 'unreadable_folder',
      message: expect.stringContaining('EACCES'),
    });
    expect(lines).toContainEqual(
      expect.objectContaining({ type: 'scan_error', path: 'ok/c.jpg', code: 'read_error', problem: 'unreadable' }),
    );
    expect(lines).toContainEqual(expect.objectContaining({ type: 'scan_error', path: 'ok/d.jpg', problem: 'damaged' }));

    const json = await runCamroll(['sync', lib, '--email', 'words@example.com', '--json']);
    expect(JSON.parse(json.stdout)).toMatchObject({
      files: 3,
      scan_errors: 2,
      unreadable: 1,
      damaged: 1,
      user_created: false,
    });

    const scanReport = join(dir, 'home', 'scan.jsonl');
    const scan = await runCamroll(['scan', lib, '--report', scanReport]);
    expect(scan.code).toBe(1);
    expect(scan.stdout).toMatch(/^ {2}unreadable: +1 \(read_error 1\)$/m);
    expect(scan.stdout).toMatch(/^ {2}damaged: +1 \(\w+ 1\)$/m);
    const scanned = reportOf(scanReport);
    expect(scanned).toContainEqual({
      path: 'locked',
      warning: { code: 'unreadable_folder', message: expect.stringContaining('EACCES') },
    });
    expect(scanned).toContainEqual(expect.objectContaining({ path: 'ok/c.jpg', problem: 'unreadable' }));
    expect(scanned).toContainEqual(expect.objectContaining({ path: 'ok/d.jpg', problem: 'damaged' }));
    const scanJson = await runCamroll(['scan', lib, '--json']);
    expect(JSON.parse(scanJson.stdout)).toMatchObject({ unreadable: 1, damaged: 1 });
  });

  it('sync -q: warnings and errors only on stderr; the created profile is in the summary', async () => {
    const run = await runCamroll(['sync', lib, '--email', 'quiet-words@example.com', '-q']);
    expect(run.code).toBe(1);
    // No notice (the pass, the created user), no hint: the warning and the error.
    expect(run.stderr.trimEnd().split('\n')).toEqual([
      'camroll: warning: locked: permission denied (EACCES) [unreadable_folder]',
      'camroll: sync-complete was not called: 2 folders or files could not be read; nothing is lost: fix it and run ' +
        'sync again',
    ]);
    expect(run.stdout).toMatch(/^profile: +created by this run \(in the service on this machine\)$/m);
  });
});
