import type { Writable } from 'node:stream';

/**
 * The shapes every command's own lines take: a notice or a warning on stderr
 * (`camroll: ...`), and the one JSON document of `--json` on stdout.
 */

/** A notice as printed: `camroll: TEXT`. */
export function noticeLine(text: string): string {
  return `camroll: ${text}`;
}

/** A warning about one path as printed: `camroll: warning: PATH: MESSAGE [CODE]`. */
export function warningLine(path: string, message: string, code: string): string {
  return noticeLine(`warning: ${path}: ${message} [${code}]`);
}

/** Where a stream's lines go while a live display holds it (above its rows). */
const holders = new WeakMap<Writable, (text: string) => void>();

/**
 * Writes text (lines, ending in a newline) on one of the command's streams. Every line a
 * command or the modules it calls print on stderr comes through here, so while a live
 * display holds the stream its rows are erased, the lines printed whole and the rows drawn
 * again below them.
 */
export function emit(stream: Writable, text: string): void {
  const holder = holders.get(stream);
  if (holder === undefined) stream.write(text);
  else holder(text);
}

/**
 * A live display takes the lines emitted on `stream` while its rows are up; the function
 * returned gives the stream back.
 */
export function holdLines(stream: Writable, above: (text: string) => void): () => void {
  holders.set(stream, above);
  return () => {
    if (holders.get(stream) === above) holders.delete(stream);
  };
}

/** Writes a notice line (stderr). */
export function notice(stream: Writable, text: string): void {
  emit(stream, `${noticeLine(text)}\n`);
}

/** A value as the one JSON document on stdout. */
export function jsonLine(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}
