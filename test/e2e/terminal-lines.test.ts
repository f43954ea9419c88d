import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, collect, type RunResult } from './helpers/camroll.js';
import { generateLibrary } from './helpers/library.js';
import { startServe } from './helpers/serve.js';
import { createSyncEnv, TEST_KEY, type SyncEnv } from './helpers/sync-env.js';
import { barRows, renderScreen, showsWhole } from './helpers/screen.js';

// util-linux `script` gives the binary a real terminal, sized 80x24 with stty inside it.
const hasScript = spawnSync('script', ['--version'], { stdio: 'ignore' }).status === 0;
const COLUMNS = 80;

/** Starts camroll on a pseudo-terminal of 80 columns; `pid` is camroll's own process (the shell execs it). */
function onTerminal(
  args: string[],
  env: NodeJS.ProcessEnv,
): { child: ChildProcess; pid: Promise<number>; output: () => string; done: Promise<RunResult> } {
  const command = [process.execPath, BIN, ...args].map((a) => `'${a}'`).join(' ');
  const child = spawn('script', ['-qec', `stty cols ${COLUMNS} rows 24; echo "pid $$"; exec ${command}`, '/dev/null'], {
    env: { ...env, TERM: 'xterm' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (d: Buffer) => (output += d.toString()));
  const pid = new Promise<number>((resolve) => {
    const look = (): void => {
      const m = /pid (\d+)/.exec(output);
      if (m) {
        child.stdout!.off('data', look);
        resolve(Number(m[1]));
      }
    };
    child.stdout!.on('data', look);
  });
  return { child, pid, output: () => output, done: collect(child, 120_000) };
}

/** Resolves once the terminal shows what `test` looks for (bounded by the run itself). */
function waitFor(run: ReturnType<typeof onTerminal>, test: (output: string) => boolean): Promise<void> {
  return new Promise((resolve, reject) => {
    const look = (): void => {
      if (test(run.output())) {
        run.child.stdout!.off('data', look);
        resolve();
      }
    };
    run.child.stdout!.on('data', look);
    void run.done.then(() => reject(new Error(`camroll ended first:\n${run.output()}`)));
  });
}

const BAR = /[\u2588\u2591]/;
/** A `-v` line, whitespace removed: `POST http://127.0.0.1:PORT/... -> 200 (12 ms, attempt 1)` after its `camroll:`. */
const REQUEST = /^(GET|POST)http:\/\/127\.0\.0\.1:\d+\/\S*?->(\d{3}|noanswer)\w*\(\d+ms,attempt\d+\)/;

/** The `-v` lines the screen starts (retry lines aside), and those of them that are there whole. */
function requestLines(screen: string[]): { started: number; whole: number } {
  const said = screen.join('').replace(/\s+/g, '').split('camroll:');
  const started = said.filter((line) => /^(GET|POST)http/.test(line) && !line.includes('retryingafter'));
  return { started: started.length, whole: started.filter((line) => REQUEST.test(line)).length };
}

/** Every row drawn, in order: its label, files done, the total and whether it still grows. */
function drawnRows(output: string): { label: string; done: number; total: number; growing: boolean }[] {
  return [...output.matchAll(/(scan|sync) {2}\|[\u2588\u2591]+\| (\d+)\/(\d+)(\+?) files \| [\d.]+ files\/s \| /g)].map(
    (m) => ({
      label: m[1]!,
      done: Number(m[2]),
      total: Number(m[3]),
      growing: m[4] === '+',
    }),
  );
}

/** The total never goes backwards, is never below what is done, and loses its `+` once only. */
function expectHonestTotals(rows: ReturnType<typeof drawnRows>): void {
  expect(rows.length).toBeGreaterThan(0);
  let shown = 0;
  let final = false;
  for (const row of rows) {
    expect(row.total).toBeGreaterThanOrEqual(shown);
    expect(row.done).toBeLessThanOrEqual(row.total);
    if (final) expect(row.growing).toBe(false);
    final ||= !row.growing;
    shown = row.total;
  }
}

const TITLE = 'what an 80-column terminal shows';
describe.skipIf(!hasScript)(
  hasScript ? TITLE : `${TITLE} (skipped: needs util-linux script for a pseudo-terminal)`,
  () => {
    let env: SyncEnv;
    let lib: string;
    beforeAll(async () => {
      env = await createSyncEnv();
      lib = mkdtempSync(join(tmpdir(), 'camroll-lib-'));
      generateLibrary({ dir: lib, files: 1200, seed: 23, perFolder: 300 });
    });
    afterAll(async () => {
      await env?.close();
      if (lib) rmSync(lib, { recursive: true, force: true });
    });

    it('sync -v: the created-user notice and every request line whole, above the bars; no bar row left at the end', async () => {
      const email = 'someone.with.quite.a.long.address@example.com';
      const run = onTerminal(
        ['sync', lib, '--email', email, '-v', '--no-events', '--no-cache', '--batch-size', '100'],
        env.clientEnv(env.serve.baseUrl),
      );
      const result = await run.done;
      const screen = renderScreen(run.output(), COLUMNS);
      expect(result.code, screen.join('\n')).toBe(0);
      // The bars were drawn (and the notices came while they were up).
      expect(run.output()).toMatch(BAR);
      const userId = /^user ([0-9a-f-]{36}) /m.exec(screen.join('\n'))?.[1];
      expect(userId, screen.join('\n')).toBeDefined();
      // Whole though longer than a row; a `camroll serve` on this machine makes no real profile.
      expect(showsWhole(screen, `camroll: created user ${userId} for ${email}`)).toBe(true);
      expect(screen.join('\n')).not.toContain('real profile');
      const requests = requestLines(screen);
      expect(requests.whole).toBeGreaterThanOrEqual(12); // health, users, stats, 12 batches, sync-complete
      expect(requests.whole).toBe(requests.started);
      expect(barRows(screen), screen.join('\n')).toEqual([]);
      expect(screen.filter((l) => BAR.test(l))).toEqual([]);
      expect(screen.every((l) => l.length <= COLUMNS)).toBe(true);
      // Honest figures: totals that only grow, and at most --concurrency (4) batches in flight.
      expectHonestTotals(drawnRows(run.output()));
      const inFlight = [...run.output().matchAll(/in flight (\d+) batch/g)].map((m) => Number(m[1]));
      expect(inFlight.length).toBeGreaterThan(0);
      expect(Math.max(...inFlight)).toBeLessThanOrEqual(4);
    });

    it("scan: the same row style as sync's, a total that only grows, no bar row left", async () => {
      const run = onTerminal(['scan', lib, '--no-cache'], env.clientEnv(env.serve.baseUrl));
      const result = await run.done;
      const screen = renderScreen(run.output(), COLUMNS);
      expect(result.code, screen.join('\n')).toBe(0);
      const rows = drawnRows(run.output());
      expect(rows.every((row) => row.label === 'scan')).toBe(true);
      expectHonestTotals(rows);
      expect(run.output()).toMatch(
        /scan {2}\|[\u2588\u2591]+\| \d+\/\d+\+? files \| [\d.]+ files\/s \| [\d.]+ MB\/s \| ETA /,
      );
      expect(barRows(screen), screen.join('\n')).toEqual([]);
      expect(screen.join('\n')).toMatch(/^Scanned 1200 files in /m);
    });

    it('Ctrl-C while the bars are up: the interruption is said, and no bar row is left', async () => {
      const run = onTerminal(
        [
          'sync',
          lib,
          '--email',
          'ctrl-c@example.com',
          '--no-events',
          '--no-cache',
          '--batch-size',
          '10',
          '--concurrency',
          '1',
        ],
        env.clientEnv(env.serve.baseUrl),
      );
      await waitFor(run, (out) => BAR.test(out) && /created user/.test(out));
      process.kill(await run.pid, 'SIGINT');
      const result = await run.done;
      const screen = renderScreen(run.output(), COLUMNS);
      expect(result.code, screen.join('\n')).toBe(130);
      expect(
        showsWhole(screen, 'sync interrupted; the journal is consistent: run the same command again to resume'),
      ).toBe(true);
      expect(barRows(screen), screen.join('\n')).toEqual([]);
    });

    it(
      'the host going away: each retry line is followed by that attempt, the stop is said whole, and no bar row is ' +
        'left',
      async () => {
        const home = env.clientEnv('');
        const db = join(env.dir, 'outage.db');
        const serve = await startServe({ env: { ...home, CAMROLL_API_KEY: TEST_KEY }, db });
        const run = onTerminal(
          [
            'sync',
            lib,
            '--email',
            'outage@example.com',
            '-v',
            '--no-events',
            '--no-cache',
            '--batch-size',
            '10',
            '--concurrency',
            '2',
            '--base-url',
            serve.baseUrl,
          ],
          home,
        );
        try {
          await waitFor(run, (out) => /\/media\s*->\s*200/.test(out.replace(/\s+/g, ' ')) && BAR.test(out));
        } finally {
          serve.child.kill('SIGKILL');
        }
        const result = await run.done;
        const screen = renderScreen(run.output(), COLUMNS);
        const text = screen.join('\n');
        expect(result.code, text).toBe(1);
        expect(showsWhole(screen, 'connection failures in a row (last: ECONNREFUSED)')).toBe(true);
        expect(barRows(screen), text).toEqual([]);
        // A retry announced is a retry made: the -v trace shows every attempt after the first.
        const flat = screen.join(' ').replace(/\s+/g, ' ');
        const announced = [...flat.matchAll(/retrying after [\d.]+ s \(attempt (\d+)\)/g)].length;
        const retried = [...flat.matchAll(/-> no answer \w+ \(\d+ ms, attempt ([2-9]|\d\d)\)/g)].length;
        expect(announced, text).toBeGreaterThan(0);
        expect(announced).toBe(retried);
        const requests = requestLines(screen);
        expect(requests.whole).toBe(requests.started);
      },
    );
  },
);
