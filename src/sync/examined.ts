import { isUnreadError, isUnreadWarning } from '../rules/unread.js';
import { MISSING_PARTS } from '../scan/index.js';
import type { PipelineEvent } from './pipeline.js';

/** Whether a pipeline event says a folder or a file's bytes could not be read (scan's rule). */
function isUnread(event: PipelineEvent): boolean {
  if (event.type === 'notice') return event.kind === 'warning' && isUnreadWarning(event.code);
  return event.type === 'scan_error' && isUnreadError(event.code);
}

/**
 * Why a pass whose batches were all answered still did not examine the library, or null:
 * nothing found (an unmounted drive looks like an empty folder) unless `allowEmpty`, something
 * that could not be read, or parts of an export not given. Corrupt files were read: they do not count.
 */
export function whyNotExamined(
  files: number,
  unreadable: number,
  allowEmpty: boolean,
  missingParts: readonly string[] = [],
): string | null {
  if (unreadable > 0)
    return `${unreadable} ${unreadable === 1 ? 'folder or file' : 'folders or files'} could not be read`;
  if (missingParts.length > 0)
    return `parts of the export were not given (${missingParts.join('; ')}); --allow-missing-parts syncs what is given as the whole library`;
  if (files === 0 && !allowEmpty)
    return (
      'no media file was found under the given folders (an unmounted drive or share?); --allow-empty syncs a ' +
      'library that is really empty'
    );
  return null;
}

/** What one pass met that says whether it examined the library whole: fed its events, asked at the end. */
export interface ExaminedWatch {
  onEvent(event: PipelineEvent): void;
  /** What could not be read at all (a folder, or a file's bytes). */
  readonly unreadable: number;
  /** Why sync-complete is not called after this pass (whyNotExamined), or null. */
  why(files: number, options: { allowEmpty?: boolean; allowMissingParts?: boolean }): string | null;
}

/** The same rule for a real pass and a dry run, so `--dry-run` says what the real run would decide. */
export function watchExamined(): ExaminedWatch {
  let unreadable = 0;
  // Exports given with parts missing, by the export's name: the library was not examined whole either.
  const missingParts: string[] = [];
  return {
    onEvent(event) {
      if (isUnread(event)) unreadable += 1;
      if (event.type === 'notice' && event.kind === 'warning' && event.code === MISSING_PARTS)
        missingParts.push(`${event.path}: ${event.message}`);
    },
    get unreadable() {
      return unreadable;
    },
    why: (files, options) =>
      whyNotExamined(
        files,
        unreadable,
        options.allowEmpty === true,
        options.allowMissingParts === true ? [] : missingParts,
      ),
  };
}
