import type { ConfigStore } from './store.js';
import { validateBaseUrl, validateProfileName } from './schema.js';

/** Where a resolved value came from, for `config show` and for error messages. */
export type Source = 'flag' | 'env' | 'profile' | 'none';

export interface Resolved<T> {
  value: T;
  source: Source;
}

export interface SettingsFlags {
  baseUrl?: string;
  profile?: string;
}

export interface ResolvedSettings {
  /** The profile in use (null when none is named or current). */
  profile: Resolved<string | null>;
  /** Whether that profile exists in the store. */
  profileExists: boolean;
  baseUrl: Resolved<string | null>;
  apiKey: Resolved<string | null>;
}

export interface ResolveInput {
  flags: SettingsFlags;
  env: NodeJS.ProcessEnv;
  store: ConfigStore;
}

const nonEmpty = (value: string | undefined): string | undefined =>
  value !== undefined && value.trim() !== '' ? value.trim() : undefined;

/**
 * Resolves base URL, key and profile: flags > environment (`CAMROLL_BASE_URL`, `CAMROLL_API_KEY`,
 * `CAMROLL_PROFILE`) > stored profile. A profile named by the --profile flag is itself a flag:
 * its stored values then outrank the environment's, so `--profile production` never pairs the
 * production URL with a key left in the environment for another host.
 */
export function resolveSettings({ flags, env, store }: ResolveInput): ResolvedSettings {
  const flagProfile = nonEmpty(flags.profile);
  const envProfile = nonEmpty(env.CAMROLL_PROFILE);
  // One read of the configuration file serves both the current profile and its values.
  const config = store.read();
  let profile: Resolved<string | null>;
  if (flagProfile !== undefined) profile = { value: validateProfileName(flagProfile), source: 'flag' };
  else if (envProfile !== undefined) profile = { value: validateProfileName(envProfile), source: 'env' };
  else {
    const current = config.current_profile;
    profile = current === null ? { value: null, source: 'none' } : { value: current, source: 'profile' };
  }

  const stored = profile.value === null ? null : (config.profiles[profile.value] ?? null);
  const storedUrl = stored?.base_url;
  const storedKey = stored?.api_key;
  const envUrl = nonEmpty(env.CAMROLL_BASE_URL);
  const envKey = nonEmpty(env.CAMROLL_API_KEY);
  const flagUrl = nonEmpty(flags.baseUrl);
  const profileFirst = profile.source === 'flag';

  let baseUrl: Resolved<string | null> = { value: null, source: 'none' };
  if (flagUrl !== undefined) baseUrl = { value: validateBaseUrl(flagUrl), source: 'flag' };
  else if (profileFirst && storedUrl !== undefined) baseUrl = { value: storedUrl, source: 'profile' };
  else if (envUrl !== undefined) baseUrl = { value: validateBaseUrl(envUrl), source: 'env' };
  else if (storedUrl !== undefined) baseUrl = { value: storedUrl, source: 'profile' };

  let apiKey: Resolved<string | null> = { value: null, source: 'none' };
  if (profileFirst && storedKey !== undefined) apiKey = { value: storedKey, source: 'profile' };
  else if (envKey !== undefined) apiKey = { value: envKey, source: 'env' };
  else if (storedKey !== undefined) apiKey = { value: storedKey, source: 'profile' };

  return { profile, profileExists: stored !== null, baseUrl, apiKey };
}
