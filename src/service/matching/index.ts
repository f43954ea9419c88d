export {
  buildMatcherTables,
  createMatcher,
  matcherFromTables,
  type MatcherTables,
  DEFAULT_MATCH_SETTINGS,
  type MatchOutcome,
  type MatchQuery,
  type Matcher,
  type MatchSettings,
} from './matcher.js';
export { haversineM, destinationPoint, EARTH_RADIUS_M } from './geo.js';
export { createSpatialIndex, type Geofence, type SpatialIndex } from './spatial-index.js';
export { createReferenceMatcher } from './reference.js';
