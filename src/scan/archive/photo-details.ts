import { createRequire } from 'node:module';
import { pipeline, Readable } from 'node:stream';
import { formatInstant } from '../extract/dates.js';
import { icloudFolderOf } from '../export-parts.js';
import type { ScanRecord } from '../types.js';

/** What an iCloud `Photo Details*.csv` row says about one photo. */
export interface PhotoDetail {
  /** originalCreationDate as epoch milliseconds (UTC, minute precision); null when unreadable. */
  takenMs: number | null;
  /** In Recently Deleted at export time: skipped as `trashed`, like that folder. */
  deleted: boolean;
  /** Hidden in the Photos app: still the user's photo, scanned as any other. */
  hidden: boolean;
}

/**
 * The rows of every `Photo Details.csv` / `Photo Details-N.csv` of an iCloud Photos export
 * (privacy.apple.com), kept per part (an archive, or the folder an unzipped part lies in):
 * a name in two parts takes its own part's row, never another's; a name its part does not
 * list takes the row another part gives it, when all that list it agree. Within a part a
 * name listed twice with different values is ambiguous and not used.
 *
 * A CSV is read as a stream, row by row (a 59 MB CSV never sits in memory), and only the
 * rows of names the run needs are kept (`wanted`), compactly (one number per row), up to
 * MAX_DETAIL_ROWS in a run.
 */
export interface PhotoDetails {
  /**
   * Reads one CSV as it streams. `part` keys its rows; `wanted` (lower-case names) says which
   * rows to keep (absent: every row). Resolves with why the CSV (or part of it) could not be
   * used, for a warning naming it, or null when every row was read.
   */
  read(input: CsvInput, options: { part: string; wanted?: (name: string) => boolean }): Promise<string | null>;
  /** The row for `name` as seen from `part` (absent: any part's, when they agree). */
  get(name: string, part?: string): PhotoDetail | null;
  /** Rows kept. */
  readonly size: number;
}

/** A CSV's text, or its bytes as they stream (a file, a zip member, a tar entry). */
export type CsvInput = string | AsyncIterable<Buffer | Uint8Array | string>;

/** Rows kept in one run at most (about 50 bytes each): past this a CSV's further rows are left with a warning. */
export const MAX_DETAIL_ROWS = 2_000_000;
/** One row of a Photo Details CSV is about 100 bytes: a longer one is not Apple's. */
const MAX_RECORD_BYTES = 64 * 1024;

/** `Photo Details.csv`, `Photo Details-1.csv`, … (any case). */
export function isPhotoDetailsName(base: string): boolean {
  return /^photo details(-\d+)?\.csv$/i.test(base);
}

const MONTHS = [
  'january',
  'february',
  'march',
  'april',
  'may',
  'june',
  'july',
  'august',
  'september',
  'october',
  'november',
  'december',
];

/**
 * `Saturday June 4,2022 12:11 PM GMT` (the weekday optional, `UTC` or `GMT±HH:MM` accepted)
 * as epoch milliseconds, or null.
 */
export function parseICloudDate(text: string): number | null {
  const m =
    /^\s*(?:[A-Za-z]+day\s+)?([A-Za-z]+)\s+(\d{1,2})\s*,\s*(\d{4})\s+(\d{1,2}):(\d{2})(?::(\d{2}))?\s*([AP]M)\s+(?:GMT|UTC)(?:([+-])(\d{1,2}):?(\d{2})?)?\s*$/i.exec(
      text,
    );
  if (!m) return null;
  const month = MONTHS.indexOf(m[1]!.toLowerCase());
  const day = Number(m[2]);
  let hour = Number(m[4]);
  if (month < 0 || day < 1 || day > 31 || hour < 1 || hour > 12) return null;
  if (m[7]!.toUpperCase() === 'PM' && hour !== 12) hour += 12;
  if (m[7]!.toUpperCase() === 'AM' && hour === 12) hour = 0;
  const offset = m[8] === undefined ? 0 : (m[8] === '-' ? -1 : 1) * (Number(m[9]) * 60 + Number(m[10] ?? 0));
  const ms = Date.UTC(Number(m[3]), month, day, hour, Number(m[5]), Number(m[6] ?? 0)) - offset * 60_000;
  const check = new Date(ms + offset * 60_000);
  return check.getUTCDate() === day ? ms : null; // June 31 is no date
}

/** A row packed in one number: the instant in seconds times 4, plus the deleted (2) and hidden (1) flags. */
const NO_INSTANT = 2 ** 50;
/** A name listed twice with different values: ambiguous, not used. */
const AMBIGUOUS = Number.NEGATIVE_INFINITY;
const YES = /^(yes|true|1)$/i;

function pack(takenMs: number | null, deleted: boolean, hidden: boolean): number {
  const seconds = takenMs === null ? NO_INSTANT : Math.floor(takenMs / 1000);
  return seconds * 4 + (deleted ? 2 : 0) + (hidden ? 1 : 0);
}

function unpack(code: number): PhotoDetail {
  const seconds = Math.floor(code / 4);
  const flags = code - seconds * 4;
  return {
    takenMs: seconds === NO_INSTANT ? null : seconds * 1000,
    deleted: (flags & 2) !== 0,
    hidden: (flags & 1) !== 0,
  };
}

type StreamParse = typeof import('csv-parse').parse;

/** csv-parse, loaded with the first CSV: most exports are not iCloud's. */
let parse: StreamParse | null = null;

/** Creates an empty set of details. */
export function createPhotoDetails(): PhotoDetails {
  const parts = new Map<string, Map<string, number>>();
  let size = 0;
  return {
    get size() {
      return size;
    },
    async read(input, options) {
      const kept = parts.get(options.part) ?? new Map<string, number>();
      parts.set(options.part, kept);
      let full = false;
      const problem = await eachRow(
        input,
        rowReader(options.wanted, (key, code) => {
          const known = kept.get(key);
          if (known === undefined) {
            if (size >= MAX_DETAIL_ROWS) full = true;
            else {
              kept.set(key, code);
              size += 1;
            }
          } else if (known !== code) kept.set(key, AMBIGUOUS);
        }),
      );
      if (problem === null && full)
        return `a run keeps at most ${MAX_DETAIL_ROWS} of its rows; the photos of the rest keep only their own dates`;
      return problem;
    },
    get: (name, part) => detailOf(parts, name, part),
  };
}

/**
 * One CSV's rows as `keep(name, packed detail)`: its first row names the columns (none named
 * `imgName`: refused, the reason returned), each later one is a photo's, kept when `wanted`.
 */
function rowReader(
  wanted: ((name: string) => boolean) | undefined,
  keep: (key: string, code: number) => void,
): (row: string[]) => string | null {
  let columns: { name: number; taken: number; deleted: number; hidden: number } | null = null;
  return (row) => {
    if (columns === null) {
      const at = (column: string): number => row.findIndex((cell) => cell.trim() === column);
      columns = {
        name: at('imgName'),
        taken: at('originalCreationDate'),
        deleted: at('deleted'),
        hidden: at('hidden'),
      };
      return columns.name < 0 ? 'it has no imgName column: not the CSV an iCloud Photos export writes' : null;
    }
    const name = row[columns.name];
    if (name === undefined || name === '') return null;
    const key = name.normalize('NFC').toLowerCase();
    if (wanted && !wanted(key)) return null;
    const taken = columns.taken < 0 ? undefined : row[columns.taken];
    keep(
      key,
      pack(
        taken === undefined ? null : parseICloudDate(taken),
        YES.test(row[columns.deleted] ?? ''),
        YES.test(row[columns.hidden] ?? ''),
      ),
    );
    return null;
  };
}

/**
 * Hands a CSV's rows to `onRow` as the parser emits them ('data': no async step per row), the
 * input piped in with backpressure: the parser holds a chunk or two; a stop ends the input.
 * `onRow` returns a reason to stop, or null. Resolves to the problem met, or null.
 */
function eachRow(input: CsvInput, onRow: (row: string[]) => string | null): Promise<string | null> {
  parse ??= (createRequire(import.meta.url)('csv-parse') as { parse: StreamParse }).parse;
  const parser = parse({
    bom: true,
    skip_empty_lines: true,
    relax_column_count: true,
    relax_quotes: true,
    trim: true,
    max_record_size: MAX_RECORD_BYTES,
  });
  return new Promise<string | null>((resolve) => {
    let settled = false;
    const settle = (result: string | null): void => {
      if (settled) return;
      settled = true;
      parser.destroy();
      resolve(result);
    };
    parser.on('data', (row: string[]) => {
      const refused = settled ? null : onRow(row);
      if (refused !== null) settle(refused);
    });
    parser.on('end', () => settle(null));
    parser.on('error', (error: Error & { lines?: number }) =>
      settle(
        `it cannot be read${error.lines === undefined ? '' : ` past line ${error.lines}`} (${error.message}); ` +
          'the rows before were used',
      ),
    );
    parser.on('close', () => settle(null));
    const source = Readable.from(typeof input === 'string' ? [input] : input, { objectMode: false });
    pipeline(source, parser, (error) => {
      if (error) settle(`it cannot be read (${error.message}); the rows before were used`);
    });
  });
}

/** A name's detail: its own part's row, else the one row the other parts agree on (none when they differ). */
function detailOf(parts: Map<string, Map<string, number>>, name: string, part: string | undefined): PhotoDetail | null {
  const key = name.normalize('NFC').toLowerCase();
  const own = part === undefined ? undefined : parts.get(part)?.get(key);
  if (own !== undefined) return own === AMBIGUOUS ? null : unpack(own);
  let found: number | undefined;
  for (const [other, rows] of parts) {
    if (other === part) continue;
    const code = rows.get(key);
    if (code === undefined) continue;
    if (code === AMBIGUOUS || (found !== undefined && found !== code)) return null;
    found = code;
  }
  return found === undefined ? null : unpack(found);
}

/**
 * The `icloud_csv` rule: a member with no capture instant of its own (every rule of its
 * bytes and sidecars gave none) takes the CSV's originalCreationDate, a UTC instant to the
 * minute. It ranks last: a file's own instant, even one placed by its coordinates' zone,
 * is more precise than the minute the CSV keeps.
 */
export function withPhotoDetails(record: ScanRecord, details: PhotoDetails): ScanRecord {
  if (!record.media || record.media.taken_at !== null || !record.source) return record;
  const part = detailsPartOf(record);
  if (part === null) return record;
  const detail = details.get(record.media.filename, part);
  const taken = detail?.takenMs == null ? null : formatInstant({ utcMs: detail.takenMs, hasFraction: false });
  if (taken === null) return record;
  return {
    ...record,
    media: { ...record.media, taken_at: taken },
    source: { ...record.source, taken_at: 'icloud_csv' },
  };
}

/**
 * What keys a file's Photo Details rows: an archive member's archive; a file on disk, the
 * iCloud export folder it lies in (export-parts.ts), none for a file outside one.
 */
export function detailsPartOf(record: Pick<ScanRecord, 'archive' | 'absPath'>): string | null {
  return record.archive ?? icloudFolderOf(record.absPath);
}
