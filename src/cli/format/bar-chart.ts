export interface Bar {
  label: string;
  value: number;
}

/**
 * A horizontal bar chart in plain characters: label, bar scaled to the largest value, count.
 * Any non-zero value gets at least one block so it never looks like zero.
 */
export function renderBarChart(bars: Bar[], options: { width?: number; block?: string } = {}): string {
  if (bars.length === 0) return '';
  const width = options.width ?? 30;
  const block = options.block ?? '█';
  const max = Math.max(...bars.map((b) => b.value));
  const labelWidth = Math.max(...bars.map((b) => [...b.label].length));
  const lines = bars.map((b) => {
    const length = max === 0 ? 0 : Math.max(b.value > 0 ? 1 : 0, Math.round((b.value / max) * width));
    return `${b.label.padEnd(labelWidth)}  ${block.repeat(length)} ${b.value}`.trimEnd();
  });
  return `${lines.join('\n')}\n`;
}

/** Counts items per year and fills the years in between with zeros, oldest first. */
export function countPerYear(years: number[]): Bar[] {
  if (years.length === 0) return [];
  const counts = new Map<number, number>();
  for (const year of years) counts.set(year, (counts.get(year) ?? 0) + 1);
  const first = Math.min(...counts.keys());
  const last = Math.max(...counts.keys());
  const bars: Bar[] = [];
  for (let year = first; year <= last; year += 1) bars.push({ label: String(year), value: counts.get(year) ?? 0 });
  return bars;
}
