import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { renderTable, type Column } from '../../src/cli/format/table.js';
import { hangingLines, terminalWidth, wrapWords } from '../../src/cli/format/width.js';

interface Row {
  id: string;
  name: string;
  note: string;
}
const rows: Row[] = [
  { id: '3f1c2a8e-4b5d-4c6e-8f90-123456789abc', name: 'someone.with.a.long.address@example.com', note: 'ok' },
  {
    id: '00000000-0000-4000-8000-000000000000',
    name: 'ana@example.com',
    note: 'four sent: three rejected (each reason once), one accepted and unmatched; nothing retained',
  },
];
const widest = (text: string): number =>
  Math.max(
    ...text
      .trimEnd()
      .split('\n')
      .map((l) => [...l].length),
  );

describe('tables at the terminal width', () => {
  const columns: Column<Row>[] = [
    { header: 'ID', value: (r) => r.id },
    { header: 'NAME', value: (r) => r.name, fit: 'truncate', minWidth: 12 },
    { header: 'NOTE', value: (r) => r.note, fit: 'wrap', minWidth: 20 },
  ];

  it('without a width (a pipe) every value is whole on one line per row', () => {
    const text = renderTable(columns, rows);
    expect(text.trimEnd().split('\n')).toHaveLength(4);
    expect(text).toContain(rows[0]!.name);
    expect(text).toContain(rows[1]!.note);
  });

  it('at 80 columns: ids whole, names cut with an ellipsis, notes wrapped at words; no line over 80', () => {
    const text = renderTable(columns, rows, { width: 80 });
    expect(widest(text)).toBeLessThanOrEqual(80);
    for (const row of rows) expect(text).toContain(row.id);
    expect(text).toContain('…');
    // The note, reassembled from its lines, is whole: wrapped, not cut.
    const notes = text
      .split('\n')
      .slice(2)
      .map((l) => l.slice(l.indexOf('  ', 38)).trim());
    expect(notes.join(' ').replace(/\s+/g, ' ')).toContain(rows[1]!.note);
  });

  it('too narrow for the columns that keep their width: each row stacked, every line within the width', () => {
    const text = renderTable(columns, rows, { width: 50 });
    expect(widest(text)).toBeLessThanOrEqual(50);
    expect(text).not.toContain('----');
    expect(text).toContain(`  NAME  ${rows[1]!.name}`);
    expect(text.split('\n')[0]).toBe(rows[0]!.id);
  });
});

describe('words wrapped within a width', () => {
  it('breaks at spaces, cuts only a word longer than a line', () => {
    expect(wrapWords('files 55 (51 with metadata, 0 unreadable)', 16)).toEqual([
      'files 55 (51',
      'with metadata, 0',
      'unreadable)',
    ]);
    expect(wrapWords('abcdefghij', 4)).toEqual(['abcd', 'efgh', 'ij']);
  });

  it('a label and its value: later lines under the value, never mid-word', () => {
    const label = 'files:'.padEnd(24);
    const text = hangingLines(label, '125000 (124000 with metadata, 100 unreadable, 900 damaged, 12 duplicates)', 60);
    const lines = text.split('\n');
    expect(lines.length).toBeGreaterThan(1);
    expect(widest(text)).toBeLessThanOrEqual(60);
    for (const line of lines.slice(1)) expect(line.startsWith(' '.repeat(24))).toBe(true);
    expect(hangingLines(label, 'short', 60)).toBe(`${label}short`);
    expect(hangingLines(label, 'x '.repeat(80), null)).toBe(`${label}${'x '.repeat(80)}`);
  });

  it("the width is the terminal's, and none for a pipe", () => {
    const pipe = new PassThrough();
    expect(terminalWidth(pipe)).toBeNull();
    expect(terminalWidth(Object.assign(new PassThrough(), { isTTY: true, columns: 80 }))).toBe(80);
  });
});
