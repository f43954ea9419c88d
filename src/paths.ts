import envPaths from 'env-paths';

/**
 * Folders camroll keeps state in. Resolved once, by `main`, from the process environment
 * (env-paths reads XDG_* there), and handed down as `ctx.paths`: nothing below `main` reads
 * the environment for them. Tests pass their own.
 */
export interface AppPaths {
  /** Embedded service database, local key, sync journals. */
  data: string;
  /** The scan cache. */
  cache: string;
  /** The stored configuration (conf). */
  config: string;
}

/** Resolves camroll's folders from the process environment (XDG on Linux, the platform's usual places elsewhere). */
export function appPaths(): AppPaths {
  const paths = envPaths('camroll', { suffix: '' });
  return { data: paths.data, cache: paths.cache, config: paths.config };
}
