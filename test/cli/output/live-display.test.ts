import { PassThrough } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { emit } from '../../../src/cli/output/emit.js';
import { createLiveDisplay, wrapLine } from '../../../src/cli/output/live-display.js';
import { createProgress } from '../../../src/cli/output/sync-progress.js';
import { createSyncTally } from '../../../src/sync/summary.js';
import { barRows, renderScreen, showsWhole } from '../../e2e/helpers/screen.js';

function terminal(): { stream: PassThrough; screen: () => string[]; raw: () => string } {
  const stream = new PassThrough();
  let output = '';
  stream.on('data', (d: Buffer) => (output += d.toString()));
  return { stream, screen: () => renderScreen(output, 80), raw: () => output };
}

const LONG_NOTICE =
  'camroll: created user 0b7d8a52-6f0e-4a4e-9c1a-2f3b4c5d6e7f for someone.with.a.long.address@example.com (a real ' +
  'profile: the sandbox runs on the production dataset)';

describe('wrapLine', () => {
  it('breaks at spaces, cuts a word longer than the width, and drops nothing', () => {
    expect(wrapLine('aaa bbb ccc', 7)).toEqual(['aaa bbb', 'ccc']);
    expect(wrapLine('abcdefghij', 4)).toEqual(['abcd', 'efgh', 'ij']);
    expect(wrapLine('short', 80)).toEqual(['short']);
    expect(wrapLine(LONG_NOTICE, 79).every((l) => l.length <= 79)).toBe(true);
    expect(wrapLine(LONG_NOTICE, 79).join(' ')).toBe(LONG_NOTICE);
  });
});

describe('the live display on an 80-column terminal', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('prints a notice longer than the width whole above the rows, and leaves no row behind at stop', () => {
    const t = terminal();
    let fraction = 0.25;
    const display = createLiveDisplay({
      stream: t.stream,
      isTTY: true,
      columns: 80,
      rows: [
        { text: (bar) => `scan  |${bar}| 1/4 files`, fraction: () => fraction },
        { text: () => `      ${'x'.repeat(120)}`, fraction: () => null },
      ],
      plainLine: () => '',
    });
    display.refresh();
    expect(barRows(t.screen())).toHaveLength(1);
    display.log(LONG_NOTICE);
    fraction = 0.75;
    vi.advanceTimersByTime(500);
    display.refresh();
    const screen = t.screen();
    // The notice first, whole (wrapped at spaces), then the two rows, each within the width.
    expect(showsWhole(screen, LONG_NOTICE)).toBe(true);
    expect(screen.filter((l) => l.startsWith('camroll: created user'))).toHaveLength(1);
    expect(screen.every((l) => l.length < 80)).toBe(true);
    expect(screen.slice(-2)[0]).toMatch(/^scan {2}\|\u2588+\u2591+\| 1\/4 files$/);
    expect(screen.slice(-1)[0]).toMatch(/^ {6}x+\u2026$/);
    display.stop();
    display.stop();
    expect(barRows(t.screen())).toEqual([]);
    expect(t.screen().filter((l) => l.includes('xxx'))).toEqual([]);
    expect(showsWhole(t.screen(), LONG_NOTICE)).toBe(true);
  });

  it(
    'puts lines emitted on the stream (retries, --verbose) above the rows, whole, and lets go of the ' +
      'stream at stop',
    () => {
      const t = terminal();
      const display = createLiveDisplay({
        stream: t.stream,
        isTTY: true,
        columns: 80,
        rows: [{ text: (bar) => `sync  |${bar}|`, fraction: () => 0.5 }],
        plainLine: () => '',
      });
      const request =
        'camroll: POST http://127.0.0.1:40123/users/0b7d8a52-6f0e-4a4e-9c1a-2f3b4c5d6e7f/media -> 200 (12 ms, attempt 1)';
      emit(t.stream, 'before the rows\n');
      display.refresh();
      // A line in two writes: nothing is drawn between its halves.
      emit(t.stream, request.slice(0, 30));
      display.refresh();
      emit(t.stream, `${request.slice(30)}\n`);
      expect(showsWhole(t.screen(), request)).toBe(true);
      expect(t.screen().at(-1)).toMatch(/^sync {2}\|/);
      display.stop();
      emit(t.stream, 'after the rows\n');
      expect(t.screen()).toEqual(['before the rows', ...wrapLine(request, 79), 'after the rows', '']);
    },
  );

  it('sync: the total carries + while listing and never shrinks; in flight counts batches', () => {
    const t = terminal();
    const tally = createSyncTally();
    const view = createProgress({ stream: t.stream, isTTY: true, now: () => 0 });
    Object.assign(tally.counts, { files: 10, sent: 5 });
    view.update({ counts: tally.counts, queued: 10, scanDone: false, total: 200, totalFinal: false, inFlight: 1 });
    expect(t.screen().join('\n')).toContain('5/200+ files');
    expect(t.screen().join('\n')).toContain('in flight 1 batch |');
    vi.advanceTimersByTime(1000);
    view.update({ counts: tally.counts, queued: 10, scanDone: false, total: 150, totalFinal: false, inFlight: 3 });
    vi.advanceTimersByTime(1000);
    expect(t.screen().join('\n')).toContain('5/200+ files');
    expect(t.screen().join('\n')).toContain('in flight 3 batches |');
    view.stop();
    expect(barRows(t.screen())).toEqual([]);
  });
});
