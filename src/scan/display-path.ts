import path from 'node:path';
import { splitMemberPath } from './sources/formats.js';
import { MEMBER_SEPARATOR } from './sources/member-path.js';

/** The roots a scan was given (resolved, absolute) and the folder it was run from. */
export interface DisplayBase {
  roots: readonly string[];
  cwd: string;
}

/**
 * The one rule for the path a file is shown under (summaries, warnings, `--jsonl`, reports,
 * `--watch`): relative to the root with one root, relative to the working folder with
 * several; `/`-separated on every platform. A root that is itself a file is shown by its name;
 * an archive's member as `ARCHIVE!/MEMBER`.
 */
export function displayPath(absPath: string, base: DisplayBase): string {
  // An archive's member: its archive as any file is shown (an archive given alone, as given),
  // then `!/` and the member's name as stored, never normalised.
  const member = splitMemberPath(absPath);
  if (member !== null) {
    const from = base.roots.length === 1 ? base.roots[0]! : base.cwd;
    const archive = member.archive === from ? asGiven(member.archive, base) : displayPath(member.archive, base);
    return `${archive}${MEMBER_SEPARATOR}${member.member}`;
  }
  const from = base.roots.length === 1 ? base.roots[0]! : base.cwd;
  return (path.relative(from, absPath) || path.basename(absPath)).split(path.sep).join('/');
}

/** A path as the user would find it from the working folder (a root given on the command line). */
function asGiven(absPath: string, base: DisplayBase): string {
  return path.relative(base.cwd, absPath).split(path.sep).join('/') || '.';
}

/**
 * displayPath for walk notices, which may be about a root folder itself (one given on the
 * command line that cannot be read): that is named as the user would find it, never as an
 * empty path or a bare name.
 */
export function noticePathShower(base: DisplayBase): (absPath: string) => string {
  const from = base.roots.length === 1 ? base.roots[0]! : base.cwd;
  return (absPath) => (absPath === from ? asGiven(absPath, base) : displayPath(absPath, base));
}

/** The path a scanned record is shown under: with one root the scanner's own path is already it. */
export function recordDisplayPath(record: { path: string; absPath: string }, base: DisplayBase): string {
  return base.roots.length <= 1 ? record.path : displayPath(record.absPath, base);
}
