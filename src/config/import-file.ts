import { createReadStream } from 'node:fs';
import { isAbsolute } from 'node:path';
import { parse as parseCsv } from 'csv-parse/sync';
import { UserId } from '../contract/index.js';
import { UsageError } from '../errors.js';
import { checkBaseUrl } from '../rules/base-url.js';
import { isValidEmail, normalizeEmail } from '../rules/email.js';
import { describeFsError } from '../util/fs-error.js';
import { IMPORT_CHUNK_ROWS, type RememberInput } from './user-directory.js';

/**
 * One line of a user import file, as a partner exports it from its own database: CSV with an
 * e-mail and a user id column (a header naming them is optional; without one, e-mail first),
 * or JSON lines `{"email": …, "user_id": …}`.
 */
export type DirectoryLine =
  | { kind: 'blank' }
  | { kind: 'header'; emailIndex: number; idIndex: number }
  | { kind: 'entry'; email: string; userId: string }
  | { kind: 'bad'; reason: string };

const EMAIL_NAMES = new Set(['email', 'e-mail', 'email_address', 'emailaddress', 'mail']);
const ID_NAMES = new Set(['user_id', 'userid', 'user id', 'id', 'uuid', 'camroll_user_id', 'service_user_id']);

/** The separators a partner's export may use: comma, semicolon (a European spreadsheet) or tab. */
const SEPARATORS = /[,;\t]/;
const CSV_OPTIONS = {
  delimiter: [',', ';', '\t'],
  trim: true,
  relax_quotes: true,
  relax_column_count: true,
  max_record_size: 64 * 1024, // 64 KiB: an e-mail and an id, with room for a partner's other columns
};

/**
 * Splits one CSV record of one line (RFC 4180 quoting, by csv-parse); null when its quoting is
 * broken. A file is read line by line and each quoted line parsed alone: csv-parse over the
 * whole file would lose the lines after a broken one, and a line without quotes (the common
 * export) needs no grammar, only its separators (csv-parse costs ~30 µs a line).
 */
export function splitCsv(line: string): string[] | null {
  if (!line.includes('"')) return line.split(SEPARATORS).map((field) => field.trim());
  try {
    return (parseCsv(line, CSV_OPTIONS) as string[][])[0] ?? [''];
  } catch {
    return null;
  }
}

const NOT_AN_OBJECT: DirectoryLine = { kind: 'bad', reason: 'not a JSON object' };

/** One JSON object of an import file, parsed; null when the text is not one. */
function parseJsonObject(text: string): Record<string, unknown> | null {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return null;
  return value as Record<string, unknown>;
}

/** The entry of a parsed JSON object: its e-mail and user id. */
function entryOfRecord(record: Record<string, unknown>): DirectoryLine {
  const email = record.email;
  const userId = record.user_id ?? record.userId;
  if (typeof email !== 'string' || typeof userId !== 'string')
    return { kind: 'bad', reason: 'needs string members "email" and "user_id"' };
  return { kind: 'entry', email: email.trim(), userId: userId.trim() };
}

function fromJson(line: string): DirectoryLine {
  const record = parseJsonObject(line);
  return record === null ? NOT_AN_OBJECT : entryOfRecord(record);
}

/**
 * Reads one line. `header` is the header seen on the first line, if any; pass null for the
 * first line itself, which may be one.
 */
export function parseDirectoryLine(
  line: string,
  header: Extract<DirectoryLine, { kind: 'header' }> | null,
): DirectoryLine {
  const text = line.replace(/^\uFEFF/, '').trim();
  if (text === '') return { kind: 'blank' };
  if (text.startsWith('{')) return fromJson(text);
  const fields = splitCsv(text);
  if (fields === null) return { kind: 'bad', reason: 'a quoted field is not closed or is followed by text' };
  if (header === null) {
    const names = fields.map((f) => f.toLowerCase());
    const emailIndex = names.findIndex((n) => EMAIL_NAMES.has(n));
    const idIndex = names.findIndex((n) => ID_NAMES.has(n));
    if (emailIndex >= 0 && idIndex >= 0) return { kind: 'header', emailIndex, idIndex };
    if (emailIndex >= 0 || idIndex >= 0)
      return { kind: 'bad', reason: 'a header needs both an e-mail and a user_id column' };
  }
  const emailIndex = header?.emailIndex ?? 0;
  const idIndex = header?.idIndex ?? 1;
  const email = fields[emailIndex];
  const userId = fields[idIndex];
  if (email === undefined || userId === undefined || email === '' || userId === '') {
    return { kind: 'bad', reason: 'needs an e-mail and a user id' };
  }
  return { kind: 'entry', email, userId };
}

/** One top-level JSON value of an import file, with the line it starts on. */
export type JsonPiece = { kind: 'object'; text: string; line: number } | { kind: 'stray'; line: number };

/**
 * Splits JSON text, chunk by chunk, into its top-level objects: JSON lines, or one array of
 * objects pretty-printed or on one line (what `users list --json` prints). Anything between
 * objects but whitespace, commas and the array's brackets is reported once per line as stray.
 */
export function createJsonSplitter(): { push(chunk: string): JsonPiece[]; end(): JsonPiece[] } {
  let line = 1;
  let depth = 0;
  let inString = false;
  let escaped = false;
  let text = '';
  let start = 0;
  let strayLine = 0;
  return {
    push(chunk) {
      const pieces: JsonPiece[] = [];
      for (const c of chunk) {
        if (depth > 0) {
          text += c;
          if (inString) {
            if (escaped) escaped = false;
            else if (c === '\\') escaped = true;
            else if (c === '"') inString = false;
          } else if (c === '"') inString = true;
          else if (c === '{' || c === '[') depth += 1;
          else if (c === '}' || c === ']') {
            depth -= 1;
            if (depth === 0) pieces.push({ kind: 'object', text, line: start });
          }
        } else if (c === '{') {
          depth = 1;
          text = c;
          start = line;
        } else if (!/[\s,[\]\uFEFF]/.test(c) && strayLine !== line) {
          strayLine = line;
          pieces.push({ kind: 'stray', line });
        }
        if (c === '\n') line += 1;
      }
      return pieces;
    },
    // An object still open at the end of the file was cut off.
    end: () => (depth > 0 ? [{ kind: 'stray', line: start }] : []),
  };
}

/** The entry of one JSON object of an import file; its own `target` (from `users list --json`) wins. */
export function jsonEntry(
  text: string,
): DirectoryLine | { kind: 'entry'; email: string; userId: string; target: string } {
  // Parsed once: the entry and its target come from the same object.
  const record = parseJsonObject(text);
  if (record === null) return NOT_AN_OBJECT;
  const parsed = entryOfRecord(record);
  if (parsed.kind !== 'entry') return parsed;
  const target = record.target;
  if (target === undefined || target === null) return parsed;
  if (typeof target !== 'string' || !isTarget(target))
    return { kind: 'bad', reason: `not a target (a base URL, or embedded:<database file>): ${String(target)}` };
  return { ...parsed, target };
}

/** A `target` as the directory names one: a base URL, or the embedded service's database file. */
function isTarget(value: string): boolean {
  if (value.startsWith('embedded:')) return isAbsolute(value.slice('embedded:'.length));
  try {
    return checkBaseUrl(value) === value;
  } catch {
    return false;
  }
}

/** Lines of a bad import are reported through this, as `file:line: reason`. */
export type ImportProblem = (text: string) => void;

/**
 * Reads an import file: a JSON array or JSON lines (by its first character) or CSV. Entries
 * without a target of their own go to `target`; bad entries are reported and skipped. The
 * entries come in blocks of at most IMPORT_CHUNK_ROWS, as the directory commits them, so a
 * file of a million users is never held whole; a file that cannot be opened fails at the first.
 */
export async function* readImportFile(
  file: string,
  target: string,
  problem: ImportProblem,
): AsyncGenerator<RememberInput[]> {
  const entries: RememberInput[] = [];
  const input = createReadStream(file, { encoding: 'utf8' });
  const opened = new Promise<void>((resolve, reject) => {
    input.once('open', () => resolve());
    input.once('error', reject);
  });
  try {
    await opened;
  } catch (error) {
    throw new UsageError(`cannot read ${file}: ${describeFsError(error as NodeJS.ErrnoException)}`);
  }
  const add = (where: number, parsed: ReturnType<typeof jsonEntry>): void => {
    if (parsed.kind === 'blank' || parsed.kind === 'header') return;
    if (parsed.kind === 'bad') problem(`${file}:${where}: ${parsed.reason}`);
    else if (!isValidEmail(normalizeEmail(parsed.email)))
      problem(`${file}:${where}: not a valid e-mail address: ${parsed.email}`);
    else if (!UserId.safeParse(parsed.userId).success)
      problem(`${file}:${where}: not a user id (a UUID): ${parsed.userId}`);
    else
      entries.push({
        target: 'target' in parsed ? parsed.target : target,
        email: parsed.email,
        userId: parsed.userId.toLowerCase(),
        source: 'import',
      });
  };

  let format: 'json' | 'csv' | null = null;
  const splitter = createJsonSplitter();
  let lineNumber = 0;
  let header: Extract<DirectoryLine, { kind: 'header' }> | null = null;
  const csvLine = (line: string): void => {
    lineNumber += 1;
    const parsed = parseDirectoryLine(line, lineNumber === 1 ? null : header);
    if (parsed.kind === 'header') header = parsed;
    else add(lineNumber, parsed);
  };
  let pending = '';
  try {
    for await (const chunk of input as AsyncIterable<string>) {
      while (entries.length >= IMPORT_CHUNK_ROWS) yield entries.splice(0, IMPORT_CHUNK_ROWS);
      if (format === null) {
        const first = chunk.replace(/^\uFEFF/, '').trimStart()[0];
        if (first === undefined) {
          pending += chunk;
          continue;
        }
        format = first === '[' || first === '{' ? 'json' : 'csv';
      }
      const text = pending + chunk;
      if (format === 'json') {
        pending = '';
        for (const piece of splitter.push(text))
          add(piece.line, piece.kind === 'object' ? jsonEntry(piece.text) : NOT_AN_OBJECT);
        continue;
      }
      const lines = text.split(/\r?\n/);
      pending = lines.pop() ?? '';
      for (const line of lines) csvLine(line);
    }
  } catch (error) {
    throw new UsageError(`cannot read ${file}: ${describeFsError(error as NodeJS.ErrnoException)}`);
  }
  if (format === 'csv' && pending !== '') csvLine(pending);
  for (const piece of splitter.end())
    add(piece.line, { kind: 'bad', reason: 'a JSON object not closed before the end of the file' });
  while (entries.length >= IMPORT_CHUNK_ROWS) yield entries.splice(0, IMPORT_CHUNK_ROWS);
  if (entries.length > 0) yield entries;
}
