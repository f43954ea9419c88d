import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createNobodyLibrary, nobodySkipReason, type NobodyLibrary } from './helpers/nobody-library.js';
import { TEST_KEY } from './helpers/sync-env.js';

// Root reads every folder whatever its mode: the binary runs as nobody to meet EACCES, from a
// copy of the binary nobody can read wherever the checkout sits (nobody-library.ts).
const skipReason = nobodySkipReason();

const TITLE = 'an unreadable folder and file, as a user who cannot read them';
describe.skipIf(skipReason !== null)(skipReason === null ? TITLE : `${TITLE} (skipped: ${skipReason})`, () => {
  let library: NobodyLibrary;
  let lib: string;
  let clientEnv: NodeJS.ProcessEnv;
  let env: NobodyLibrary['env'];
  const asNobody = (args: string[], options: { env: NodeJS.ProcessEnv }) => library.run(args, options);

  beforeAll(async () => {
    library = await createNobodyLibrary({ prefix: 'camroll-unreadable-' });
    ({ lib, clientEnv, env } = library);
    // Nobody must be able to start the copy at all, or every answer below is about that.
    const version = await asNobody(['--version'], { env: clientEnv });
    expect(version.code, `nobody cannot run camroll: ${version.stderr}`).toBe(0);
  });
  afterAll(async () => {
    await library?.close();
  });

  it('sync: no sync-complete, exit 1, and the summary says why; scan agrees (exit 1)', async () => {
    const run = await asNobody(['sync', lib, '--email', 'unreadable@example.com', '--json'], { env: clientEnv });
    expect(run.code, run.stderr).toBe(1);
    const summary = JSON.parse(run.stdout) as {
      user_id: string;
      outcome: string;
      sync_complete: boolean;
      not_examined: string;
      sent: number;
    };
    expect(summary).toMatchObject({
      outcome: 'not_examined',
      sync_complete: false,
      sent: 1,
      not_examined: '2 folders or files could not be read',
    });
    expect(run.stderr).toContain('camroll: warning: locked: permission denied (EACCES) [unreadable_folder]');
    expect(run.stderr).toContain('camroll: sync-complete was not called: 2 folders or files could not be read');
    expect(`${run.stdout}${run.stderr}`).not.toContain(TEST_KEY);
    // The service was never told the library was examined.
    const stats = await fetch(`${env.serve.baseUrl}/users/${summary.user_id}/stats`, {
      headers: { 'X-PARTNER-API-KEY': TEST_KEY },
    });
    expect(await stats.json()).toMatchObject({ has_synced: false });

    const human = await asNobody(['sync', lib, '--email', 'unreadable@example.com', '--no-events'], { env: clientEnv });
    expect(human.code).toBe(1);
    expect(human.stdout).toMatch(/^sync-complete: +not called: 2 folders or files could not be read$/m);

    const scan = await asNobody(['scan', lib], { env: clientEnv });
    expect(scan.code).toBe(1);
    expect(scan.stdout).toMatch(/read_error 1/);
    expect(scan.stdout).toMatch(/unreadable_folder 1/);
  });
});
