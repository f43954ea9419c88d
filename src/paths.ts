import envPaths from 'env-paths';

/** Folders camroll keeps state in. Tests point them elsewhere through XDG_* variables. */
export interface AppPaths {
  /** Embedded service database, local key, sync journals. */
  data: string;
  /** The scan cache. */
  cache: string;
  /** The stored configuration (conf). */
  config: string;
}

/** Resolves camroll's folders for this user (XDG on Linux, the platform's usual places elsewhere). */
export function appPaths(): AppPaths {
  const paths = envPaths('camroll', { suffix: '' });
  return { data: paths.data, cache: paths.cache, config: paths.config };
}
