/** The seconds formatter lives in src/util/seconds.ts (client and doctor word durations alike); kept for importers here. */
export { formatSeconds } from '../../util/seconds.js';
