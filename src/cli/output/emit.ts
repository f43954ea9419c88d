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

/** Writes a notice line (stderr). */
export function notice(stream: Writable, text: string): void {
  stream.write(`${noticeLine(text)}\n`);
}

/** A value as the one JSON document on stdout. */
export function jsonLine(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}
