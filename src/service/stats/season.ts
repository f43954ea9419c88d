import type { Season } from '../../contract/stats.js';

const NORTHERN: readonly Season[] = [
  'winter',
  'winter',
  'spring',
  'spring',
  'spring',
  'summer',
  'summer',
  'summer',
  'autumn',
  'autumn',
  'autumn',
  'winter',
];
const FLIPPED: Readonly<Record<Season, Season>> = {
  spring: 'autumn',
  summer: 'winter',
  autumn: 'spring',
  winter: 'summer',
};

/**
 * The season of a local month (1-12) at a venue: Mar-May spring, Jun-Aug summer,
 * Sep-Nov autumn, Dec-Feb winter, flipped south of the equator (latitude < 0).
 */
export function seasonOf(month: number, latitude: number): Season {
  const season = NORTHERN[month - 1];
  if (season === undefined) throw new RangeError(`month out of range: ${month}`);
  return latitude < 0 ? FLIPPED[season] : season;
}
