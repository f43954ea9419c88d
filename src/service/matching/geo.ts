/** Mean Earth radius in metres (IUGG), used for great-circle distances. */
export const EARTH_RADIUS_M = 6_371_008.8;
/** Metres per degree of latitude on that sphere. */
export const METRES_PER_DEGREE = (Math.PI * EARTH_RADIUS_M) / 180;
const TO_RAD = Math.PI / 180;

/** Great-circle (haversine) distance in metres between two points given in degrees. */
export function haversineM(lat1: number, lon1: number, lat2: number, lon2: number): number {
  const dLat = (lat2 - lat1) * TO_RAD;
  const dLon = (lon2 - lon1) * TO_RAD;
  const sLat = Math.sin(dLat / 2);
  const sLon = Math.sin(dLon / 2);
  const a = sLat * sLat + Math.cos(lat1 * TO_RAD) * Math.cos(lat2 * TO_RAD) * sLon * sLon;
  return 2 * EARTH_RADIUS_M * Math.asin(Math.min(1, Math.sqrt(a)));
}

/**
 * The point reached from (lat, lon) after `distanceM` metres on initial bearing
 * `bearingDeg` (0 = north, 90 = east). Tests and the benchmark use it to place points.
 */
export function destinationPoint(
  lat: number,
  lon: number,
  distanceM: number,
  bearingDeg: number,
): { latitude: number; longitude: number } {
  const delta = distanceM / EARTH_RADIUS_M;
  const theta = bearingDeg * TO_RAD;
  const phi1 = lat * TO_RAD;
  const lambda1 = lon * TO_RAD;
  const sinPhi2 = Math.sin(phi1) * Math.cos(delta) + Math.cos(phi1) * Math.sin(delta) * Math.cos(theta);
  const phi2 = Math.asin(sinPhi2);
  const y = Math.sin(theta) * Math.sin(delta) * Math.cos(phi1);
  const x = Math.cos(delta) - Math.sin(phi1) * sinPhi2;
  const lambda2 = lambda1 + Math.atan2(y, x);
  const longitude = ((((lambda2 / TO_RAD + 540) % 360) + 360) % 360) - 180;
  return { latitude: phi2 / TO_RAD, longitude };
}
