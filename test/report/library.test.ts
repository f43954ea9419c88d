import { describe, expect, it } from 'vitest';
import {
  CELL_SIZES_DEG,
  classesOf,
  createLibraryAggregator,
  MAX_CELLS,
  MAX_PROBLEMS,
  OTHER_DEVICES,
} from '../../src/report/library.js';
import { buildHistory } from '../../src/report/history.js';
import type { ScanEvent, ScannedMedia, SourceInfo } from '../../src/scan/types.js';

let next = 0;
function media(over: Partial<ScannedMedia> = {}, source: Partial<SourceInfo> = {}): ScanEvent {
  next += 1;
  const m: ScannedMedia = {
    id: `sha256:${next.toString(16).padStart(64, '0')}`,
    taken_at: '2024-07-12T20:00:00Z',
    latitude: 40.75,
    longitude: -73.99,
    media_type: 'photo',
    filename: `IMG_${next}.jpg`,
    duration_seconds: null,
    device_make: 'Apple',
    device_model: 'iPhone 13',
    device_lens_model: null,
    ...over,
  };
  return {
    type: 'record',
    record: {
      path: m.filename,
      absPath: `/x/${m.filename}`,
      size: 10,
      mtimeMs: 0,
      media: m,
      source: {
        taken_at: m.taken_at ? 'exif_offset' : null,
        coordinates: m.latitude === null ? null : 'exif_gps',
        ...source,
      },
      error: null,
      cached: false,
    },
  };
}

function broken(path: string, code: string): ScanEvent {
  return {
    type: 'record',
    record: {
      path,
      absPath: path,
      size: 1,
      mtimeMs: 0,
      media: null,
      source: null,
      error: { code, message: `bad ${path}` },
      cached: false,
    },
  };
}

describe('createLibraryAggregator', () => {
  it('counts time, place and device, months by UTC month with and without a place, and the rules used', () => {
    const agg = createLibraryAggregator();
    agg.add(media());
    agg.add(media({ taken_at: '2024-07-31T23:30:00Z', latitude: null, longitude: null }));
    agg.add(media({ taken_at: null, device_make: null, device_model: null }));
    agg.add(media({ taken_at: '2023-01-01T00:00:00Z' }, { taken_at: 'takeout', coordinates: 'takeout' }));
    agg.add(broken('damaged/a.jpg', 'corrupt_file'));
    agg.add({ type: 'warning', code: 'unreadable_folder', path: 'locked', message: 'permission denied' });
    agg.add({ type: 'skipped', reason: 'junk', path: '.DS_Store' });
    const r = agg.result();
    expect(r.summary.files).toBe(5);
    expect(r.summary.media).toBe(4);
    expect(r.summary.damaged).toBe(1);
    expect([r.with_time, r.with_place, r.with_both]).toEqual([3, 3, 2]);
    expect(r.months).toEqual([
      { month: '2023-01', with_place: 1, without_place: 0 },
      { month: '2024-07', with_place: 1, without_place: 1 },
    ]);
    expect(r.devices).toEqual([
      { device: 'Apple iPhone 13', files: 3, with_place: 2, with_time: 3, with_both: 2 },
      { device: 'unknown device', files: 1, with_place: 1, with_time: 0, with_both: 0 },
    ]);
    expect(r.rules.taken_at).toEqual({ exif_offset: 2, none: 1, takeout: 1 });
    expect(r.rules.coordinates).toEqual({ exif_gps: 2, none: 1, takeout: 1 });
    expect(r.problems.rows.map((p) => [p.kind, p.path, p.code])).toEqual([
      ['error', 'damaged/a.jpg', 'corrupt_file'],
      ['warning', 'locked', 'unreadable_folder'],
    ]);
    expect(r.classes).toBeNull();
  });

  it('puts places into cells of the finest grid, and the cells hold every place', () => {
    const agg = createLibraryAggregator();
    agg.add(media({ latitude: 40.75, longitude: -73.99 }));
    agg.add(media({ latitude: 40.71, longitude: -73.91 }));
    agg.add(media({ latitude: -33.86, longitude: 151.21 }));
    const { cells } = agg.result();
    expect(cells.size_deg).toBe(CELL_SIZES_DEG[0]);
    expect(cells.cells).toEqual([
      { lat: -33.9, lon: 151.2, count: 1 },
      { lat: 40.7, lon: -74, count: 2 },
    ]);
  });

  it('coarsens the grid past MAX_CELLS and keeps every place counted', () => {
    const agg = createLibraryAggregator();
    const n = MAX_CELLS + 500;
    for (let i = 0; i < n; i += 1)
      agg.add(media({ latitude: -60 + (i % 1200) * 0.1, longitude: -170 + Math.floor(i / 1200) * 0.1 }));
    const { cells } = agg.result();
    expect(cells.size_deg).toBeGreaterThan(CELL_SIZES_DEG[0]);
    expect(cells.cells.length).toBeLessThanOrEqual(MAX_CELLS);
    expect(cells.cells.reduce((s, c) => s + c.count, 0)).toBe(n);
  });

  it('keeps at most MAX_PROBLEMS rows and counts the rest; bounds devices', () => {
    const agg = createLibraryAggregator();
    for (let i = 0; i < MAX_PROBLEMS + 7; i += 1) agg.add(broken(`b/${i}.jpg`, 'corrupt_file'));
    for (let i = 0; i < 600; i += 1) agg.add(media({ device_model: `Model ${i}` }));
    const r = agg.result();
    expect(r.problems.rows).toHaveLength(MAX_PROBLEMS);
    expect(r.problems.more).toBe(7);
    expect(r.devices.reduce((s, d) => s + d.files, 0)).toBe(600);
    expect(r.devices.find((d) => d.device === OTHER_DEVICES)?.files).toBe(100);
  });

  it('reads the files left out or collapsed by class from the summary', () => {
    const summary = createLibraryAggregator().result().summary;
    expect(classesOf(summary)).toBeNull();
    const left_out = {
      screenshot: { files: 2, signals: { 'file name': 2 } },
      trashed: { files: 1, signals: { Takeout: 1 } },
    };
    expect(classesOf({ ...summary, left_out })).toEqual({ screenshot: 2, trashed: 1 });
  });
});

describe('buildHistory', () => {
  it('orders events by local start, counts media and gathers venues with a place', () => {
    const venue = { id: 1, name: 'Arena', city: 'X', country: 'US', latitude: 1, longitude: 2 };
    const h = buildHistory(
      'u',
      [
        { id: 2, name: 'B', starts_at_local: '2024-05-01T20:00:00', venue, media: [{ media_id: 'a' }], performers: [] },
        { id: 1, name: 'A', starts_at_local: '2023-05-01T20:00:00', venue, media_count: 3 },
        { id: 3, name: 'C', starts_at_local: '2022-05-01T20:00:00', venue: null },
      ],
      null,
    );
    expect(h.events.map((e) => [e.id, e.media_count])).toEqual([
      [3, 0],
      [1, 3],
      [2, 1],
    ]);
    expect(h.venues).toEqual([{ name: 'Arena', latitude: 1, longitude: 2, events: 2 }]);
  });
});
