import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from './helpers/camroll.js';
import { generateLibrary } from './helpers/library.js';
import { HAS_SCRIPT, runOnTerminal } from './helpers/pty.js';
import { renderScreen, showsWhole } from './helpers/screen.js';
import { createSyncEnv, type SyncEnv } from './helpers/sync-env.js';

const COLUMNS = 80;
const FIXTURES = join(ROOT, 'fixtures', 'library');
const EMAIL = 'someone.with.quite.a.long.address@example.com';
const BAR = /[\u2588\u2591]/;

/** The lines as written (no terminal wrap): each must fit the terminal for nothing to wrap. */
const writtenLines = (output: string): string[] => renderScreen(output, 100_000);
/**
 * Lines of tables and summaries longer than the terminal. Notices on stderr (`camroll: …`) are
 * messages the terminal wraps whole (test/e2e/terminal-lines.test.ts), not part of them.
 */
const overlong = (output: string): string[] =>
  writtenLines(output).filter((l) => [...l].length > COLUMNS && !l.startsWith('camroll: '));

const TITLE = 'tables and summaries in an 80-column terminal';
describe.skipIf(!HAS_SCRIPT)(HAS_SCRIPT ? TITLE : `${TITLE} (skipped: needs util-linux script)`, () => {
  let env: SyncEnv;
  let lib: string;
  let userId: string;
  beforeAll(async () => {
    env = await createSyncEnv();
    lib = mkdtempSync(join(tmpdir(), 'camroll-lib-'));
    // Enough files for four-digit counts: the summary's files: line is longer than a row.
    generateLibrary({ dir: lib, files: 1200, seed: 7, perFolder: 400 });
  });
  afterAll(async () => {
    await env?.close();
    if (lib) rmSync(lib, { recursive: true, force: true });
  });

  it('sync: every summary line and the events table fit; the files: line wraps at words under its value', async () => {
    const run = await runOnTerminal(
      ['sync', lib, FIXTURES, '--email', EMAIL, '--no-progress', '--no-cache'],
      env.clientEnv(env.serve.baseUrl),
    );
    const screen = renderScreen(run.output, COLUMNS);
    expect(run.code, screen.join('\n')).toBe(0);
    userId = /^user ([0-9a-f-]{36})/m.exec(screen.join('\n'))?.[1] ?? '';
    expect(userId).not.toBe('');
    const written = writtenLines(run.output);
    const files = written.findIndex((l) => l.startsWith('files:'));
    expect(files, written.join('\n')).toBeGreaterThanOrEqual(0);
    // Wrapped by camroll, under the value's start, with whole words.
    expect(written[files + 1]).toMatch(/^ {24}\S/);
    expect(showsWhole(written, 'unreadable,')).toBe(true);
    expect(overlong(run.output)).toEqual([]);
  });

  it('users list: each entry fits (stacked, the id whole), --json holds every value whole', async () => {
    const run = await runOnTerminal(['users', 'list'], env.clientEnv(env.serve.baseUrl));
    expect(run.code, run.output).toBe(0);
    expect(overlong(run.output)).toEqual([]);
    const screen = renderScreen(run.output, COLUMNS);
    expect(screen.join('\n')).toContain(userId);
    expect(screen.join('\n')).toContain(EMAIL);
    const json = await runOnTerminal(['users', 'list', '--json'], env.clientEnv(env.serve.baseUrl));
    expect(json.output).toContain(`"target":"${env.serve.baseUrl}"`);
    // And the same list for that target, named by --base-url as every client command takes it.
    const scoped = await runOnTerminal(['users', 'list', '--base-url', env.serve.baseUrl], env.clientEnv(''));
    expect(scoped.code, scoped.output).toBe(0);
    expect(renderScreen(scoped.output, COLUMNS).join('\n')).toContain(userId);
  });

  it('doctor --round-trip: the table and its hints fit, details wrapped at words', async () => {
    const run = await runOnTerminal(['doctor', '--round-trip'], env.clientEnv(env.serve.baseUrl));
    expect(run.code, run.output).toBe(0);
    expect(overlong(run.output)).toEqual([]);
    const screen = renderScreen(run.output, COLUMNS);
    expect(showsWhole(screen, '1 accepted and unmatched; nothing retained')).toBe(true);
    expect(screen.join('\n')).toMatch(/^doctor ok: /m);
  });

  it('scan -q: the summary without a progress bar, its long lists wrapped at words', async () => {
    const run = await runOnTerminal(['scan', lib, FIXTURES, '-q', '--no-cache'], env.clientEnv(env.serve.baseUrl));
    // The fixture library holds damaged files on purpose: exit 1, and the summary all the same.
    expect(run.code, run.output).toBe(1);
    expect(run.output).not.toMatch(BAR);
    expect(overlong(run.output)).toEqual([]);
    expect(showsWhole(renderScreen(run.output, COLUMNS), 'thumbnail_folder 1')).toBe(true);
    expect(renderScreen(run.output, COLUMNS).join('\n')).toMatch(/files/);
  });
});
