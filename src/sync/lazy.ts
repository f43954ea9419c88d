/**
 * A sync session's deferred loads: what it needs once its scan is running, kept off the path
 * to the first file read (the walk and the read threads start while these load). The rules
 * are in docs/ARCHITECTURE.md ("Load rules"); this module imports nothing but types.
 */

/** The real pass (journal, pipeline, client calls) and `--watch`'s start. */
export const loadPass = async (): Promise<
  Pick<typeof import('./run.js'), 'runSync'> & Pick<typeof import('./follow.js'), 'startWatch'>
> => {
  const [{ runSync }, { startWatch }] = await Promise.all([import('./run.js'), import('./follow.js')]);
  return { runSync, startWatch };
};

/** `--dry-run`: the journal found read-only and the predicting pass. */
export const loadDryPass = async (): Promise<
  Pick<typeof import('./dry-run-journal.js'), 'findDryRunJournal'> & Pick<typeof import('./dry-run.js'), 'runDrySync'>
> => {
  const [{ findDryRunJournal }, { runDrySync }] = await Promise.all([
    import('./dry-run-journal.js'),
    import('./dry-run.js'),
  ]);
  return { findDryRunJournal, runDrySync };
};

/** The watcher (chokidar): only with `--watch`, once the watches are being set. */
export const loadWatcher = (): Promise<typeof import('./watch.js')> => import('./watch.js');
