import { createScanSummary, type ScanEvent, type ScanSummary } from '../scan/index.js';

/**
 * The data model of the library picture (`--html`): what a scan found, aggregated as the
 * records stream by. Pure (no I/O, no clock) and bounded: it keeps counts, the map's cells
 * and at most MAX_PROBLEMS problem rows, never the records themselves.
 */

/** Grid sizes of the map's cells, finest first; the grid coarsens when it holds more than MAX_CELLS. */
export const CELL_SIZES_DEG = [0.1, 0.5, 2, 10] as const;
export const MAX_CELLS = 20_000;
/** Problem rows kept (the rest are counted in `more`). */
export const MAX_PROBLEMS = 5_000;
/** Distinct devices counted one by one; past them, files count as `OTHER_DEVICES`. */
export const MAX_DEVICES = 500;
export const OTHER_DEVICES = 'other devices';
export const UNKNOWN_DEVICE = 'unknown device';
/** A path or message longer than this is cut (hostile names must not grow the page). */
const MAX_TEXT = 400;

export interface DeviceRow {
  device: string;
  files: number;
  with_place: number;
  with_time: number;
  with_both: number;
}

export interface MonthRow {
  /** `YYYY-MM` of the UTC capture time. */
  month: string;
  with_place: number;
  without_place: number;
}

export interface ProblemRow {
  path: string;
  /** `error`: the file could not be used; `warning`: part of it (or a folder) could not be read. */
  kind: 'error' | 'warning';
  code: string;
  message: string;
}

/** A cell of the map: its south-west corner and the media in it. */
export interface PlaceCell {
  lat: number;
  lon: number;
  count: number;
}

export interface LibraryReport {
  /** The scan summary, as `scan --json` prints it. */
  summary: ScanSummary;
  /** Files left out by class, when the summary counts them (`left_out`); null when it does not. */
  classes: Record<string, number> | null;
  /** Media with a capture time, a place, both. */
  with_time: number;
  with_place: number;
  with_both: number;
  devices: DeviceRow[];
  months: MonthRow[];
  /** How many media each rule gave their capture time and place (`none`: no rule did). */
  rules: { taken_at: Record<string, number>; coordinates: Record<string, number> };
  cells: { size_deg: number; cells: PlaceCell[] };
  problems: { rows: ProblemRow[]; more: number };
}

/** Feed it every scan event; read `result()` at the end. */
export interface LibraryAggregator {
  add(event: ScanEvent): void;
  result(): LibraryReport;
}

const cut = (text: string): string => (text.length > MAX_TEXT ? `${text.slice(0, MAX_TEXT - 1)}…` : text);

const bump = (counts: Record<string, number>, key: string): void => {
  counts[key] = (counts[key] ?? 0) + 1;
};

/** The files left out or collapsed, by origin class (`left_out`: class -> files); null when none was. */
export function classesOf(summary: ScanSummary): Record<string, number> | null {
  const entries = Object.entries(summary.left_out).map(([origin, count]) => [origin, count?.files ?? 0] as const);
  return entries.length === 0 ? null : Object.fromEntries(entries);
}

/** A grid of place cells that coarsens (CELL_SIZES_DEG) to stay within MAX_CELLS. */
function createCellGrid(): { add(lat: number, lon: number): void; result(): LibraryReport['cells'] } {
  let level = 0;
  let cells = new Map<string, PlaceCell>();
  const key = (lat: number, lon: number, size: number): [string, number, number] => {
    // Integer steps of the grid (rounded to 1e-9 so 0.3/0.1 lands on 3, not 2.9999).
    const i = Math.floor(Math.round((lat / size) * 1e6) / 1e6);
    const j = Math.floor(Math.round((lon / size) * 1e6) / 1e6);
    return [`${i},${j}`, round(i * size), round(j * size)];
  };
  const put = (into: Map<string, PlaceCell>, lat: number, lon: number, count: number): void => {
    const [k, south, west] = key(lat, lon, CELL_SIZES_DEG[level]!);
    const cell = into.get(k);
    if (cell) cell.count += count;
    else into.set(k, { lat: south, lon: west, count });
  };
  return {
    add(lat, lon) {
      put(cells, lat, lon, 1);
      while (cells.size > MAX_CELLS && level < CELL_SIZES_DEG.length - 1) {
        level += 1;
        const coarser = new Map<string, PlaceCell>();
        // A finer cell lies whole inside one coarser cell: its corner places it.
        for (const cell of cells.values()) put(coarser, cell.lat, cell.lon, cell.count);
        cells = coarser;
      }
    },
    result() {
      const list = [...cells.values()].map((c) => ({ ...c }));
      list.sort((a, b) => a.lat - b.lat || a.lon - b.lon);
      return { size_deg: CELL_SIZES_DEG[level]!, cells: list };
    },
  };
}

const round = (value: number): number => Math.round(value * 1e6) / 1e6;

/** Creates an empty aggregator. */
export function createLibraryAggregator(): LibraryAggregator {
  const summary = createScanSummary();
  const devices = new Map<string, DeviceRow>();
  const months = new Map<string, MonthRow>();
  const takenAt: Record<string, number> = {};
  const coordinates: Record<string, number> = {};
  const grid = createCellGrid();
  const problems: ProblemRow[] = [];
  let moreProblems = 0;
  const totals = { with_time: 0, with_place: 0, with_both: 0 };

  const problem = (row: ProblemRow): void => {
    if (problems.length < MAX_PROBLEMS)
      problems.push({ ...row, path: cut(row.path), code: cut(row.code), message: cut(row.message) });
    else moreProblems += 1;
  };
  const deviceRow = (name: string): DeviceRow => {
    let row = devices.get(name);
    if (row) return row;
    if (devices.size >= MAX_DEVICES && name !== OTHER_DEVICES) return deviceRow(OTHER_DEVICES);
    row = { device: name, files: 0, with_place: 0, with_time: 0, with_both: 0 };
    devices.set(name, row);
    return row;
  };

  return {
    add(event) {
      summary.add(event);
      if (event.type === 'skipped') return;
      if (event.type === 'warning') {
        problem({ path: event.path, kind: 'warning', code: event.code, message: event.message });
        return;
      }
      const { record } = event;
      if (record.error || !record.media) {
        problem({
          path: record.path,
          kind: 'error',
          code: record.error?.code ?? 'unknown',
          message: record.error?.message ?? 'no metadata',
        });
        return;
      }
      for (const warning of record.source?.warnings ?? [])
        problem({ path: record.path, kind: 'warning', code: warning.code, message: warning.message });
      const media = record.media;
      const hasTime = media.taken_at !== null;
      const hasPlace = media.latitude !== null && media.longitude !== null;
      const name = [media.device_make, media.device_model]
        .filter((part) => part?.trim())
        .join(' ')
        .trim();
      const device = deviceRow(cut(name || UNKNOWN_DEVICE));
      device.files += 1;
      if (hasTime) {
        totals.with_time += 1;
        device.with_time += 1;
        const month = media.taken_at!.slice(0, 7);
        let row = months.get(month);
        if (!row) months.set(month, (row = { month, with_place: 0, without_place: 0 }));
        if (hasPlace) row.with_place += 1;
        else row.without_place += 1;
      }
      if (hasPlace) {
        totals.with_place += 1;
        device.with_place += 1;
        grid.add(media.latitude!, media.longitude!);
      }
      if (hasTime && hasPlace) {
        totals.with_both += 1;
        device.with_both += 1;
      }
      bump(takenAt, record.source?.taken_at ?? 'none');
      bump(coordinates, record.source?.coordinates ?? 'none');
    },
    result() {
      const scanned = summary.result();
      return {
        summary: scanned,
        classes: classesOf(scanned),
        ...totals,
        devices: [...devices.values()].map((d) => ({ ...d })).sort((a, b) => b.files - a.files),
        months: [...months.values()].map((m) => ({ ...m })).sort((a, b) => (a.month < b.month ? -1 : 1)),
        rules: { taken_at: { ...takenAt }, coordinates: { ...coordinates } },
        cells: grid.result(),
        problems: { rows: problems.map((p) => ({ ...p })), more: moreProblems },
      };
    },
  };
}
