/** One column of a plain-text table. */
export interface Column<Row> {
  header: string;
  value: (row: Row) => string;
  /** Right-align (numbers). */
  align?: 'left' | 'right';
  /** Longer cells are cut with an ellipsis so one long name does not wreck the layout. */
  maxWidth?: number;
}

/** Cuts text to `max` characters, marking the cut with an ellipsis. */
export function truncate(text: string, max: number): string {
  const chars = [...text];
  return chars.length <= max ? text : `${chars.slice(0, Math.max(0, max - 1)).join('')}…`;
}

const width = (text: string): number => [...text].length;

/** Renders rows as aligned columns separated by two spaces, with a header and a rule. */
export function renderTable<Row>(columns: Column<Row>[], rows: Row[]): string {
  return [...tableLines(columns, () => rows)].join('');
}

/**
 * renderTable's lines one by one, for a table too long to hold: `rows` is read twice, once for
 * the column widths and once for the lines, and no row or cell is kept between the two.
 * Rows that grew in between (another process writing) push their line out, never break it.
 */
export function* tableLines<Row>(columns: Column<Row>[], rows: () => Iterable<Row>): Generator<string> {
  const cellsOf = (row: Row): string[] =>
    columns.map((column) => {
      const raw = column.value(row).replace(/\s+/g, ' ');
      return column.maxWidth === undefined ? raw : truncate(raw, column.maxWidth);
    });
  const widths = columns.map((column) => width(column.header));
  for (const row of rows()) {
    cellsOf(row).forEach((cell, i) => {
      widths[i] = Math.max(widths[i] ?? 0, width(cell));
    });
  }
  const pad = (text: string, i: number): string => {
    const gap = ' '.repeat(Math.max(0, (widths[i] ?? 0) - width(text)));
    return columns[i]?.align === 'right' ? gap + text : text + gap;
  };
  const join = (parts: string[]): string => `${parts.map(pad).join('  ').trimEnd()}\n`;
  yield join(columns.map((c) => c.header));
  yield join(widths.map((w) => '-'.repeat(w)));
  for (const row of rows()) yield join(cellsOf(row));
}
