import { haversineM, METRES_PER_DEGREE } from './geo.js';

/** Grid cells per degree: 0.01 degree is about 1.1 km of latitude. */
const CELLS_PER_DEGREE = 100;
const LAT_CELLS = 180 * CELLS_PER_DEGREE;
const LON_CELLS = 360 * CELLS_PER_DEGREE;
/** A venue spanning more cells than this (a pole, a huge radius) is checked on every lookup. */
const MAX_CELLS_PER_VENUE = 1024;
/** Widens each venue's box a little so rounding never drops a point right on the fence. */
const BOX_MARGIN = 1.01;

/** One geofence: a centre in degrees and a radius in metres. */
export interface Geofence {
  latitude: number;
  longitude: number;
  radiusM: number;
}

/** Finds the geofence whose centre is nearest a point, among those containing it. */
export interface SpatialIndex {
  /** Index (into the input array) of the nearest containing geofence, or -1. */
  nearest(latitude: number, longitude: number): number;
}

function latCell(latitude: number): number {
  return Math.min(LAT_CELLS - 1, Math.max(0, Math.floor((latitude + 90) * CELLS_PER_DEGREE)));
}

function lonCell(longitude: number): number {
  const cell = Math.floor((longitude + 180) * CELLS_PER_DEGREE) % LON_CELLS;
  return cell < 0 ? cell + LON_CELLS : cell;
}

/**
 * Builds a uniform grid over the globe keyed by integer cell id: each geofence is listed in
 * every cell its bounding box touches (longitude wrapping at ±180), so a lookup reads one
 * cell and measures a handful of candidates. Ties in distance go to the lower input index.
 */
export function createSpatialIndex(fences: readonly Geofence[]): SpatialIndex {
  const cells = new Map<number, number[]>();
  const wide: number[] = [];
  const lat = new Float64Array(fences.length);
  const lon = new Float64Array(fences.length);
  const radius = new Float64Array(fences.length);

  fences.forEach((fence, index) => {
    lat[index] = fence.latitude;
    lon[index] = fence.longitude;
    radius[index] = fence.radiusM;
    const dLat = (fence.radiusM / METRES_PER_DEGREE) * BOX_MARGIN;
    const maxAbsLat = Math.min(90, Math.abs(fence.latitude) + dLat);
    const cos = Math.cos((maxAbsLat * Math.PI) / 180);
    const dLon = cos > 1e-9 ? dLat / cos : 360;
    const lat0 = latCell(fence.latitude - dLat);
    const lat1 = latCell(fence.latitude + dLat);
    const lonFirst = Math.floor((fence.longitude - dLon + 180) * CELLS_PER_DEGREE);
    const lonLast = Math.floor((fence.longitude + dLon + 180) * CELLS_PER_DEGREE);
    const count = (lat1 - lat0 + 1) * (lonLast - lonFirst + 1);
    if (dLon >= 180 || count > MAX_CELLS_PER_VENUE) {
      wide.push(index);
      return;
    }
    for (let la = lat0; la <= lat1; la += 1) {
      for (let lo = lonFirst; lo <= lonLast; lo += 1) {
        const key = la * LON_CELLS + (((lo % LON_CELLS) + LON_CELLS) % LON_CELLS);
        const bucket = cells.get(key);
        if (bucket === undefined) cells.set(key, [index]);
        else bucket.push(index);
      }
    }
  });

  function nearest(latitude: number, longitude: number): number {
    let best = -1;
    let bestDistance = Infinity;
    const bucket = cells.get(latCell(latitude) * LON_CELLS + lonCell(longitude));
    if (bucket !== undefined) {
      for (let i = 0; i < bucket.length; i += 1) {
        const index = bucket[i] as number;
        const d = haversineM(latitude, longitude, lat[index] as number, lon[index] as number);
        if (d <= (radius[index] as number) && (d < bestDistance || (d === bestDistance && index < best))) {
          best = index;
          bestDistance = d;
        }
      }
    }
    for (let i = 0; i < wide.length; i += 1) {
      const index = wide[i] as number;
      const d = haversineM(latitude, longitude, lat[index] as number, lon[index] as number);
      if (d <= (radius[index] as number) && (d < bestDistance || (d === bestDistance && index < best))) {
        best = index;
        bestDistance = d;
      }
    }
    return best;
  }

  return { nearest };
}
