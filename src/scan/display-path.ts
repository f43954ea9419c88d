import path from 'node:path';

/** The roots a scan was given (resolved, absolute) and the folder it was run from. */
export interface DisplayBase {
  roots: readonly string[];
  cwd: string;
}

/**
 * The one rule for the path a file is shown under (summaries, warnings, `--jsonl`, reports,
 * `--watch`): relative to the root with one root, relative to the working folder with
 * several; `/`-separated on every platform. A root that is itself a file is shown by its name.
 */
export function displayPath(absPath: string, base: DisplayBase): string {
  const from = base.roots.length === 1 ? base.roots[0]! : base.cwd;
  return (path.relative(from, absPath) || path.basename(absPath)).split(path.sep).join('/');
}

/**
 * displayPath for walk notices, which may be about a root folder itself (one given on the
 * command line that cannot be read): that is named as the user would find it, never as an
 * empty path or a bare name.
 */
export function noticePathShower(base: DisplayBase): (absPath: string) => string {
  const from = base.roots.length === 1 ? base.roots[0]! : base.cwd;
  const asGiven = (absPath: string): string => path.relative(base.cwd, absPath).split(path.sep).join('/') || '.';
  return (absPath) => (absPath === from ? asGiven(absPath) : displayPath(absPath, base));
}

/** The path a scanned record is shown under: with one root the scanner's own path is already it. */
export function recordDisplayPath(record: { path: string; absPath: string }, base: DisplayBase): string {
  return base.roots.length <= 1 ? record.path : displayPath(record.absPath, base);
}
