import type { Writable } from 'node:stream';
import { holdLines } from './emit.js';

/**
 * The one live display of camroll's long jobs (scan, sync): rows redrawn in place on a
 * terminal, a plain line every few seconds otherwise (logs, CI, TERM=dumb). What the rows
 * say is the caller's; how they reach the stream is decided here only.
 */
export interface LiveDisplay {
  /** New figures: redraw (a terminal) or remember them for the next plain line. */
  refresh(): void;
  /** A notice line on the same stream, printed whole above the rows so they stay intact. */
  log(line: string): void;
  /** Ends the display: on a terminal the rows are erased (a summary follows that says it all). Safe to call twice. */
  stop(): void;
}

/** One row on a terminal: its text around a bar `width` characters wide, drawn at `fraction` (0 to 1). */
export interface LiveRow {
  text(bar: string): string;
  /** Null: the row has no bar (`text` gets ''). */
  fraction(): number | null;
}

export interface LiveDisplayOptions {
  stream: Writable;
  isTTY: boolean;
  /** Rows redrawn on a terminal. */
  rows: LiveRow[];
  /** The plain line written every `intervalMs` when the stream is not a terminal. */
  plainLine(): string;
  intervalMs?: number;
  /** Also write a last plain line at `stop()` when the job lasted an interval or more. */
  finalPlainLine?: boolean;
  now?: () => number;
  /** Terminal width when the stream does not tell (tests); the stream's `columns` wins. */
  columns?: number;
}

const PLAIN_INTERVAL_MS = 5 * 1000; // 5 s: often enough for a log, rare enough not to flood it
const REDRAW_MS = 200; // 5 redraws a second: live enough, and cheap on a slow terminal
const BAR_MIN = 10;
const BAR_MAX = 40;
const CSI = '\u001b[';

/** A live display on `stream`; nothing is drawn before the first `refresh()`. */
export function createLiveDisplay(options: LiveDisplayOptions): LiveDisplay {
  return options.isTTY ? createRows(options) : createPlainLines(options);
}

/** The bar of `fraction` (clamped to 0..1), `width` characters. */
export function drawBar(fraction: number, width: number): string {
  const filled = Math.round(Math.min(1, Math.max(0, Number.isFinite(fraction) ? fraction : 0)) * width);
  return '\u2588'.repeat(filled) + '\u2591'.repeat(width - filled);
}

/**
 * Breaks a line into pieces of at most `width` characters, at spaces where it can (a word
 * longer than the width is cut into pieces): nothing is dropped, and each piece is a whole
 * screen line, so the rows below are never pushed into a wrap the display cannot count.
 */
export function wrapLine(line: string, width: number): string[] {
  const max = Math.max(1, width);
  const out: string[] = [];
  let rest = line;
  while (rest.length > max) {
    const space = rest.lastIndexOf(' ', max);
    const cut = space > 0 ? space : max;
    out.push(rest.slice(0, cut));
    rest = rest.slice(space > 0 ? cut + 1 : cut);
  }
  out.push(rest);
  return out;
}

/**
 * Rows on a terminal. While they are drawn, every line emitted on the stream (emit.ts: the
 * client's retry and `--verbose` lines, which know nothing of the display, included) goes
 * above them as whole lines: the rows are erased, the line printed and wrapped to the width, the rows
 * drawn again below it. Each row is kept shorter than the width, so the rows take exactly
 * as many screen lines as there are rows and erasing them leaves nothing stale behind.
 */
function createRows(options: LiveDisplayOptions): LiveDisplay {
  const { stream } = options;
  const now = options.now ?? Date.now;
  const write = (text: string): boolean => stream.write(text);
  const columns = (): number => Math.max(20, (stream as NodeJS.WriteStream).columns || options.columns || 80);
  let drawn = 0; // screen lines the rows take now (the cursor sits at the end of the last one)
  let lastDraw = -Infinity;
  let timer: NodeJS.Timeout | null = null;
  let partial = '';
  let active = false;
  let stopped = false;
  let letGo: (() => void) | null = null;

  /** Moves to the start of the first row and erases the rows. */
  const erase = (): string => {
    if (drawn === 0) return '';
    const up = drawn > 1 ? `${CSI}${drawn - 1}A` : '';
    drawn = 0;
    return `\r${up}${CSI}J`;
  };
  const render = (): string => {
    const width = columns() - 1;
    const lines = options.rows.map((row) => {
      const fraction = row.fraction();
      if (fraction === null) return fitWidth(row.text(''), width);
      const bar = Math.min(BAR_MAX, Math.max(BAR_MIN, width - row.text('').length));
      return fitWidth(row.text(drawBar(fraction, bar)), width);
    });
    drawn = lines.length;
    lastDraw = now();
    return lines.join('\n');
  };
  const draw = (): void => {
    if (timer !== null) {
      clearTimeout(timer);
      timer = null;
    }
    write(erase() + render());
  };
  const above = (lines: string[]): void => {
    const width = columns() - 1;
    const text = lines.flatMap((line) => wrapLine(line, width)).join('\n');
    if (!active) {
      write(`${text}\n`);
      return;
    }
    write(`${erase()}${text}\n${render()}`);
  };
  // Lines emitted while the rows are up: whole lines go above them; a line still being
  // written waits for its end.
  const held = (text: string): void => {
    const lines = (partial + text).split('\n');
    partial = lines.pop() ?? '';
    if (lines.length > 0) above(lines);
  };
  // A process that ends without stop() (a second Ctrl-C exits at once) still leaves no rows.
  const onExit = (): void => release();
  const release = (): void => {
    if (!active) return;
    active = false;
    if (timer !== null) clearTimeout(timer);
    timer = null;
    letGo?.();
    letGo = null;
    process.off('exit', onExit);
    const rest = partial === '' ? '' : `${wrapLine(partial, columns() - 1).join('\n')}\n`;
    partial = '';
    write(erase() + rest);
  };
  return {
    refresh() {
      if (stopped) return;
      if (!active) {
        active = true;
        letGo = holdLines(stream, held);
        process.on('exit', onExit);
        draw();
        return;
      }
      const wait = lastDraw + REDRAW_MS - now();
      if (wait <= 0) draw();
      else if (timer === null) {
        timer = setTimeout(draw, wait);
        timer.unref();
      }
    },
    log(line) {
      above([line]);
    },
    stop() {
      stopped = true;
      release();
    },
  };
}

/** A row cut to the width, so it never wraps (wrapped rows could not be erased reliably). */
function fitWidth(text: string, width: number): string {
  return text.length <= width ? text : `${text.slice(0, Math.max(0, width - 1))}\u2026`;
}

function createPlainLines(options: LiveDisplayOptions): LiveDisplay {
  const now = options.now ?? Date.now;
  const interval = options.intervalMs ?? PLAIN_INTERVAL_MS;
  const started = now();
  let refreshed = false;
  // On a timer, not on refreshes: a job stuck on one huge file still says how far it got.
  const timer = setInterval(() => {
    if (refreshed) options.stream.write(`${options.plainLine()}\n`);
  }, interval);
  timer.unref();
  let stopped = false;
  return {
    refresh() {
      refreshed = true;
    },
    log(line) {
      options.stream.write(`${line}\n`);
    },
    stop() {
      if (stopped) return;
      stopped = true;
      clearInterval(timer);
      if (options.finalPlainLine && refreshed && now() - started >= interval)
        options.stream.write(`${options.plainLine()}\n`);
    },
  };
}
