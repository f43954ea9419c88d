import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { makeJpeg } from './exif-jpeg.js';
import { seededRandom } from '../../../src/util/seeded-random.js';

/** Demo-catalog anchor events: venue centre and UTC start (see the catalog's anchor table). */
export const ANCHORS = [
  { event: 1, lat: 40.7505, lon: -73.9934, start: '2024-07-13T00:00:00Z', shown: true },
  { event: 2, lat: -33.8568, lon: 151.2153, start: '2023-12-09T08:30:00Z', shown: true },
  { event: 3, lat: 51.556, lon: -0.2795, start: '2024-03-30T20:00:00Z', shown: true },
  { event: 4, lat: 35.7056, lon: 139.7519, start: '2022-08-20T09:00:00Z', shown: true },
  { event: 5, lat: -23.5275, lon: -46.6783, start: '2024-11-17T00:00:00Z', shown: true },
  { event: 6, lat: 39.6654, lon: -105.2057, start: '2023-08-06T01:00:00Z', shown: false }, // unlicensed
  { event: 7, lat: -33.9035, lon: 18.4112, start: '2022-02-19T13:00:00Z', shown: false }, // hidden
  { event: 8, lat: 48.8386, lon: 2.3786, start: '2024-10-26T18:00:00Z', shown: true },
] as const;

export interface LibraryOptions {
  dir: string;
  files: number;
  /** Share of files placed at anchor events (inside their windows). */
  anchorShare?: number;
  /** Share of files without GPS, and without a date (both rejected by the service). */
  noGpsShare?: number;
  noDateShare?: number;
  seed?: number;
  /** Files per folder. */
  perFolder?: number;
}

export interface LibraryFacts {
  files: number;
  /** Files at a shown anchor event (will match), by event id. */
  matchedByEvent: Map<number, number>;
  missingCoordinates: number;
  missingTakenAt: number;
}

/**
 * Writes a library of small JPEGs: most in the South Pacific (no venue there) at random
 * times, a share at anchor events, some without GPS or date. Returns what a sync must find.
 */
export function generateLibrary(options: LibraryOptions): LibraryFacts {
  const random = seededRandom(options.seed ?? 42);
  const perFolder = options.perFolder ?? 500;
  const facts: LibraryFacts = {
    files: options.files,
    matchedByEvent: new Map(),
    missingCoordinates: 0,
    missingTakenAt: 0,
  };
  for (let i = 0; i < options.files; i += 1) {
    const folder = join(options.dir, `roll-${String(Math.floor(i / perFolder)).padStart(4, '0')}`);
    if (i % perFolder === 0) mkdirSync(folder, { recursive: true });
    const r = random();
    let spec: Parameters<typeof makeJpeg>[0];
    if (r < (options.anchorShare ?? 0.03)) {
      const anchor = ANCHORS[Math.floor(random() * ANCHORS.length)]!;
      // Within [start - 1 h, start + 3 h]: inside the window whatever the rounding.
      const takenAt = new Date(Date.parse(anchor.start) + (random() * 4 - 1) * 3600_000);
      spec = {
        takenAt,
        latitude: anchor.lat + (random() - 0.5) * 0.0005,
        longitude: anchor.lon + (random() - 0.5) * 0.0005,
        tag: `f${i}`,
      };
      if (anchor.shown) facts.matchedByEvent.set(anchor.event, (facts.matchedByEvent.get(anchor.event) ?? 0) + 1);
    } else {
      const takenAt = new Date(Date.parse('2015-01-01T00:00:00Z') + random() * 10 * 365 * 86400_000);
      const noGps = random() < (options.noGpsShare ?? 0.1);
      const noDate = !noGps && random() < (options.noDateShare ?? 0.05);
      if (noGps) facts.missingCoordinates += 1;
      if (noDate) facts.missingTakenAt += 1;
      spec = {
        takenAt: noDate ? null : takenAt,
        latitude: noGps ? null : -40 + random() * 10,
        longitude: noGps ? null : -140 + random() * 20,
        tag: `f${i}`,
      };
    }
    writeFileSync(join(folder, `IMG_${String(i).padStart(6, '0')}.jpg`), makeJpeg(spec));
  }
  return facts;
}
