import { createRequire } from 'node:module';
import { formatInstant } from '../extract/dates.js';
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
 * (privacy.apple.com), keyed by `imgName` across all parts: the CSV of part 1 describes
 * photos of part 3. A name listed twice with different instants is ambiguous and not used.
 */
export interface PhotoDetails {
  add(csv: string): void;
  get(name: string): PhotoDetail | null;
  readonly size: number;
}

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

type ParseSync = (input: string, options: Record<string, unknown>) => Record<string, string>[];

/** Creates an empty set of details. */
export function createPhotoDetails(): PhotoDetails {
  const rows = new Map<string, PhotoDetail | null>();
  let parse: ParseSync | null = null;
  return {
    get size() {
      return rows.size;
    },
    add(csv) {
      // Loaded with the first CSV: most exports are not iCloud's.
      parse ??= (createRequire(import.meta.url)('csv-parse/sync') as { parse: ParseSync }).parse;
      let records: Record<string, string>[];
      try {
        records = parse(csv, {
          columns: true,
          bom: true,
          skip_empty_lines: true,
          relax_column_count: true,
          trim: true,
        });
      } catch {
        return; // not the CSV we know: it describes nothing
      }
      for (const row of records) {
        const name = row.imgName;
        if (typeof name !== 'string' || name === '') continue;
        const key = name.toLowerCase();
        const detail: PhotoDetail = {
          takenMs: typeof row.originalCreationDate === 'string' ? parseICloudDate(row.originalCreationDate) : null,
          deleted: /^(yes|true|1)$/i.test(row.deleted ?? ''),
          hidden: /^(yes|true|1)$/i.test(row.hidden ?? ''),
        };
        const known = rows.get(key);
        if (known === undefined) rows.set(key, detail);
        else if (known !== null && known.takenMs !== detail.takenMs) rows.set(key, null);
      }
    },
    get: (name) => rows.get(name.toLowerCase()) ?? null,
  };
}

/**
 * The `icloud_csv` rule: a member with no capture instant of its own (every rule of its
 * bytes and sidecars gave none) takes the CSV's originalCreationDate, a UTC instant to the
 * minute. It ranks last: a file's own instant, even one placed by its coordinates' zone,
 * is more precise than the minute the CSV keeps.
 */
export function withPhotoDetails(record: ScanRecord, details: PhotoDetails): ScanRecord {
  if (record.archive === undefined || !record.media || record.media.taken_at !== null || !record.source) return record;
  const detail = details.get(record.media.filename);
  const taken = detail?.takenMs == null ? null : formatInstant({ utcMs: detail.takenMs, hasFraction: false });
  if (taken === null) return record;
  return {
    ...record,
    media: { ...record.media, taken_at: taken },
    source: { ...record.source, taken_at: 'icloud_csv' },
  };
}
