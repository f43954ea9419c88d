import picomatch from 'picomatch';

/**
 * `--exclude` as a pure predicate over a path relative to the scanned root (POSIX
 * separators). A pattern without `/` matches at any depth (`Screenshots`, `*.png`); one with
 * `/` is anchored at the root (`2019/raw/**`). Dot names match like any other (`dot: true`).
 * A folder that matches is not entered, so `2019/raw/**` also leaves out `2019/raw` itself.
 */
export function createExcludeMatcher(patterns: readonly string[]): ((relPath: string) => boolean) | null {
  if (patterns.length === 0) return null;
  const anchored = patterns.map((pattern) => (pattern.includes('/') ? pattern : `**/${pattern}`));
  return picomatch(anchored, { dot: true });
}
