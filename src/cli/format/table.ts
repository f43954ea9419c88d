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
  const cells = rows.map((row) =>
    columns.map((column) => {
      const raw = column.value(row).replace(/\s+/g, ' ');
      return column.maxWidth === undefined ? raw : truncate(raw, column.maxWidth);
    }),
  );
  // A loop, not Math.max(...cells): spreading 100,000 rows overflows the call stack (a RangeError).
  const widths = columns.map((column) => width(column.header));
  for (const line of cells) {
    line.forEach((cell, i) => {
      widths[i] = Math.max(widths[i] ?? 0, width(cell));
    });
  }
  const pad = (text: string, i: number): string => {
    const gap = ' '.repeat((widths[i] ?? 0) - width(text));
    return columns[i]?.align === 'right' ? gap + text : text + gap;
  };
  const join = (parts: string[]): string => parts.map(pad).join('  ').trimEnd();
  const lines = [join(columns.map((c) => c.header)), join(widths.map((w) => '-'.repeat(w)))];
  for (const line of cells) lines.push(join(line));
  return `${lines.join('\n')}\n`;
}
