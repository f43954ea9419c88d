import { textWidth, wrapWords } from './width.js';

/** One column of a plain-text table. */
export interface Column<Row> {
  header: string;
  value: (row: Row) => string;
  /** Right-align (numbers). */
  align?: 'left' | 'right';
  /** Longer cells are cut with an ellipsis so one long name does not wreck the layout. */
  maxWidth?: number;
  /**
   * How the column gives way when the table is wider than the terminal: its cells cut with an
   * ellipsis, or wrapped at words over several lines. A column without it keeps its width (an
   * id one copies whole); when those alone are too wide, each row is stacked instead.
   */
  fit?: 'truncate' | 'wrap';
  /** The narrowest a `fit` column gets (default 12, or its header when wider). */
  minWidth?: number;
}

/** Where a table is printed: `width` is the terminal's (src/cli/format/width.ts), null for a pipe. */
export interface TableLayout {
  width?: number | null;
}

/** Cuts text to `max` characters, marking the cut with an ellipsis. */
export function truncate(text: string, max: number): string {
  const chars = [...text];
  return chars.length <= max ? text : `${chars.slice(0, Math.max(0, max - 1)).join('')}…`;
}

const GAP = 2;
const DEFAULT_MIN_WIDTH = 12;

/** Renders rows as aligned columns separated by two spaces, with a header and a rule. */
export function renderTable<Row>(columns: Column<Row>[], rows: Row[], layout: TableLayout = {}): string {
  return [...tableLines(columns, () => rows, layout)].join('');
}

/**
 * Column widths that fit `width`: the `fit` columns narrowed, the widest first, down to their
 * least; null when the table cannot fit so (its rows are then stacked).
 */
function fitWidths<Row>(columns: Column<Row>[], natural: number[], width: number | null | undefined): number[] | null {
  const widths = [...natural];
  if (width === null || width === undefined) return widths;
  const least = columns.map((c, i) =>
    c.fit === undefined
      ? (natural[i] ?? 0)
      : Math.min(natural[i] ?? 0, Math.max(c.minWidth ?? DEFAULT_MIN_WIDTH, textWidth(c.header))),
  );
  let excess = widths.reduce((sum, w) => sum + w, 0) + GAP * (columns.length - 1) - width;
  while (excess > 0) {
    let widest = -1;
    widths.forEach((w, i) => {
      if (w > (least[i] ?? 0) && (widest < 0 || w > (widths[widest] ?? 0))) widest = i;
    });
    if (widest < 0) return null;
    widths[widest] = (widths[widest] ?? 0) - 1;
    excess -= 1;
  }
  return widths;
}

/**
 * renderTable's lines one by one, for a table too long to hold: `rows` is read twice, once for
 * the column widths and once for the lines, and no row or cell is kept between the two.
 * Rows that grew in between (another process writing) push their line out, never break it.
 * With a `layout.width`, the table fits it (see Column.fit), or each row is stacked: its first
 * cell on a line, then the others as `  HEADER  value`, each cut to the width.
 */
export function* tableLines<Row>(
  columns: Column<Row>[],
  rows: () => Iterable<Row>,
  layout: TableLayout = {},
): Generator<string> {
  const cellsOf = (row: Row): string[] =>
    columns.map((column) => {
      const raw = column.value(row).replace(/\s+/g, ' ');
      return column.maxWidth === undefined ? raw : truncate(raw, column.maxWidth);
    });
  const natural = columns.map((column) => textWidth(column.header));
  for (const row of rows()) {
    cellsOf(row).forEach((cell, i) => {
      natural[i] = Math.max(natural[i] ?? 0, textWidth(cell));
    });
  }
  const widths = fitWidths(columns, natural, layout.width);
  if (widths === null) {
    yield* stackedLines(columns, rows, cellsOf, layout.width as number);
    return;
  }
  const pad = (text: string, i: number): string => {
    const gap = ' '.repeat(Math.max(0, (widths[i] ?? 0) - textWidth(text)));
    return columns[i]?.align === 'right' ? gap + text : text + gap;
  };
  const join = (parts: string[]): string => `${parts.map(pad).join(' '.repeat(GAP)).trimEnd()}\n`;
  yield join(columns.map((c) => c.header));
  yield join(widths.map((w) => '-'.repeat(w)));
  for (const row of rows()) {
    // A cell wider than its column (one that gives way) is cut or wrapped; the row takes the lines it needs.
    const cells = cellsOf(row).map((cell, i) => {
      const w = widths[i] ?? 0;
      const fit = layout.width === null || layout.width === undefined ? undefined : columns[i]?.fit;
      if (textWidth(cell) <= w || fit === undefined) return [cell];
      return fit === 'wrap' ? wrapWords(cell, w) : [truncate(cell, w)];
    });
    const height = Math.max(...cells.map((lines) => lines.length));
    for (let line = 0; line < height; line += 1) yield join(cells.map((lines) => lines[line] ?? ''));
  }
}

/** Each row as a block: its first cell, then `  HEADER  value` for the others, every line cut to `width`. */
function* stackedLines<Row>(
  columns: Column<Row>[],
  rows: () => Iterable<Row>,
  cellsOf: (row: Row) => string[],
  width: number,
): Generator<string> {
  const label = Math.max(...columns.slice(1).map((c) => textWidth(c.header)));
  for (const row of rows()) {
    const [first = '', ...rest] = cellsOf(row);
    yield `${truncate(first, width)}\n`;
    for (const [i, cell] of rest.entries()) {
      if (cell === '') continue;
      yield `${truncate(`  ${(columns[i + 1]?.header ?? '').padEnd(label)}  ${cell}`, width).trimEnd()}\n`;
    }
  }
}
