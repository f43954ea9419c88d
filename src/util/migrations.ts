import { LocalStateError, type LocalStateErrorCode } from '../errors.js';

/**
 * One step of a database's schema: `up` runs once, on a database whose recorded version is
 * below `version`. Every camroll database (the SQLite files through `openVersionedDatabase`,
 * the service's PostgreSQL schema) keeps its steps as one such list, numbered 1, 2, 3, …
 * and append only: a released step is never edited, a change is a new step.
 */
export interface Migration {
  /** The version recorded once this step has run (`PRAGMA user_version` on SQLite). */
  readonly version: number;
  /** The SQL of the step. */
  readonly up: string;
}

/** The version a list brings a database to: its last step's. Throws on a list not numbered 1, 2, 3, … (a defect). */
export function latestVersion(migrations: readonly Migration[]): number {
  migrations.forEach((step, index) => {
    if (step.version !== index + 1) throw new Error(`migration ${index + 1} is numbered ${step.version}`);
  });
  return migrations.length;
}

/**
 * The refusal to open a database whose recorded schema is newer than this build knows: its
 * data may use what this build cannot read, so it is left untouched. `subject` names the
 * database at the front of the message; empty when the caller adds its own.
 */
export function schemaTooNew(code: LocalStateErrorCode, found: number, latest: number, subject = ''): LocalStateError {
  const message = `was written by a newer camroll (schema ${found} is newer than this camroll's ${latest}); upgrade camroll`;
  return new LocalStateError(code, subject === '' ? message : `${subject} ${message}`);
}

/** The steps a database recorded at `version` still needs, in order. */
export function migrationsAfter(migrations: readonly Migration[], version: number): readonly Migration[] {
  return migrations.slice(version);
}
