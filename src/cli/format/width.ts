import type { Writable } from 'node:stream';

/**
 * The width output must fit: the terminal's columns when the stream is one, else null (a pipe
 * or a file takes lines whole; `--json` holds every value in full either way).
 */
export function terminalWidth(stream: Writable): number | null {
  const tty = stream as Writable & { isTTY?: boolean; columns?: number };
  return tty.isTTY === true && typeof tty.columns === 'number' && tty.columns > 0 ? tty.columns : null;
}

/** Characters as a terminal counts them (code points; camroll's own text has no wide ones). */
export const textWidth = (text: string): number => [...text].length;

/**
 * Text broken into lines of at most `width` characters at spaces; a word longer than a line
 * is cut where the line ends. Never an empty list.
 */
export function wrapWords(text: string, width: number): string[] {
  const max = Math.max(1, width);
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    let rest = word;
    while (textWidth(rest) > max) {
      // A word that cannot fit on any line is cut; it starts on a line of its own.
      if (line !== '') lines.push(line);
      line = '';
      const chars = [...rest];
      lines.push(chars.slice(0, max).join(''));
      rest = chars.slice(max).join('');
    }
    if (line === '') line = rest;
    else if (textWidth(line) + 1 + textWidth(rest) <= max) line += ` ${rest}`;
    else {
      lines.push(line);
      line = rest;
    }
  }
  lines.push(line);
  return lines;
}

/**
 * `label` then `text`, the text wrapped at words to `width` with later lines indented under
 * its start (`files:   12 (10 with metadata, …` then `         2 duplicates)`). Without a
 * width, one line.
 */
export function hangingLines(label: string, text: string, width: number | null): string {
  if (width === null || textWidth(label) + textWidth(text) <= width) return `${label}${text}`;
  const indent = textWidth(label);
  // A label that leaves no room puts the text under it.
  if (width - indent < 20) return [label.trimEnd(), ...wrapWords(text, width - 2).map((l) => `  ${l}`)].join('\n');
  const [first = '', ...rest] = wrapWords(text, width - indent);
  return [`${label}${first}`, ...rest.map((l) => `${' '.repeat(indent)}${l}`)].join('\n');
}
