import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { geoEquirectangular, geoPath } from 'd3-geo';
import { feature } from 'topojson-client';
import type { GeometryCollection, Topology } from 'topojson-specification';

/**
 * The map's land for `--html`: Natural Earth's 1:110m land (the world-atlas package's
 * TopoJSON) projected once, here in Node, with d3-geo's equirectangular projection to one SVG
 * path. The page only places its marks with the same projection's two lines of arithmetic
 * (x = W/2 + lon·W/360, y = H/2 − lat·W/360), so it carries no projection code.
 */

/** The map's width and height in SVG units (the whole world, 2:1). */
export const MAP_WIDTH = 960;
export const MAP_HEIGHT = 480;

let cached: string | null = null;

/**
 * The land as one SVG path's `d`, coordinates to 0.1 unit (about 4 km at the equator). The
 * 1:50m land was 12 times the bytes and slower to paint, for detail only a deep zoom shows.
 */
export function landPath(): string {
  if (cached !== null) return cached;
  const require = createRequire(import.meta.url);
  const topology = JSON.parse(readFileSync(require.resolve('world-atlas/land-110m.json'), 'utf8')) as Topology<{
    land: GeometryCollection;
  }>;
  const land = feature(topology, topology.objects.land);
  const projection = geoEquirectangular()
    .scale(MAP_WIDTH / (2 * Math.PI))
    .translate([MAP_WIDTH / 2, MAP_HEIGHT / 2]);
  cached = geoPath(projection).digits(1)(land) ?? '';
  return cached;
}
