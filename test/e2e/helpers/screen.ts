/**
 * A small terminal model for what a program wrote to a terminal: printable characters
 * (with the terminal's own wrap at the last column), carriage return, newline, backspace,
 * cursor up/down/column, erase line and erase below. Other escape sequences are ignored.
 * Enough to tell what a user sees once the output stops: every line, scrollback included.
 */
export function renderScreen(output: string, columns: number): string[] {
  const lines: string[][] = [[]];
  let row = 0;
  let col = 0;
  const line = (): string[] => {
    while (lines.length <= row) lines.push([]);
    return lines[row]!;
  };
  for (let i = 0; i < output.length; i += 1) {
    const ch = output[i]!;
    if (ch === '\u001b') {
      const csi = /^\u001b\[([?0-9;]*)([@-~])/.exec(output.slice(i, i + 32));
      if (csi) {
        i += csi[0].length - 1;
        const n = Number.parseInt(csi[1] || '1', 10) || 1;
        const arg = csi[1] ?? '';
        switch (csi[2]) {
          case 'A':
            row = Math.max(0, row - n);
            break;
          case 'B':
            row += n;
            break;
          case 'G':
            col = n - 1;
            break;
          case 'K':
            if (arg === '2') line().length = 0;
            else if (arg === '' || arg === '0') line().length = Math.min(line().length, col);
            break;
          case 'J':
            if (arg === '' || arg === '0') {
              line().length = Math.min(line().length, col);
              lines.length = row + 1;
            }
            break;
          default:
            break;
        }
        continue;
      }
      const osc = /^\u001b\][^\u0007]*\u0007/.exec(output.slice(i));
      if (osc) i += osc[0].length - 1;
      continue;
    }
    if (ch === '\r') col = 0;
    else if (ch === '\n') {
      row += 1;
      col = 0;
      line();
    } else if (ch === '\b') col = Math.max(0, col - 1);
    else if (ch === '\t') col = Math.min(columns - 1, (Math.floor(col / 8) + 1) * 8);
    else if (ch >= ' ') {
      if (col >= columns) {
        row += 1;
        col = 0;
      }
      const l = line();
      while (l.length < col) l.push(' ');
      l[col] = ch;
      col += 1;
    }
  }
  return lines.map((l) => l.join('').trimEnd());
}

/** Whether `text` shows up whole on the screen, wrapped or not (whitespace aside). */
export function showsWhole(screen: string[], text: string): boolean {
  return screen.join('').replace(/\s+/g, '').includes(text.replace(/\s+/g, ''));
}

/** Lines of the screen that are a progress display's rows (a bar, or the row under it). */
export function barRows(screen: string[]): string[] {
  return screen.filter((l) => /[\u2588\u2591]/.test(l) || /^ {6}answered \d/.test(l));
}
