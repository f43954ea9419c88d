import { isUnreadError } from '../../rules/unread.js';

/** What went wrong with a file that gave no metadata, as reports name it. */
export type FileProblem = 'unreadable' | 'damaged';

/** `unreadable` when its bytes could not be read (permissions, I/O), `damaged` when they were read but are unusable. */
export function fileProblem(code: string): FileProblem {
  return isUnreadError(code) ? 'unreadable' : 'damaged';
}
