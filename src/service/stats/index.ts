export { computeStats, SUPERLATIVE_MIN_EVENTS, type StatsInput } from './compute-stats.js';
export { seasonOf } from './season.js';
export { createTally, type Tally } from './tally.js';
