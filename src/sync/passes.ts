/**
 * What a sync session loads once its scan is running: the pass (journal, pipeline), the
 * dry run and `--watch`. One dynamic import of this module (in session.ts) keeps them off
 * the path to the first file read: the walk and the read threads start while they load.
 */
export { findDryRunJournal } from './dry-run-journal.js';
export { runDrySync } from './dry-run.js';
export { startWatch } from './follow.js';
export { runSync } from './run.js';
