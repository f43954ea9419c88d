import { ConfigError, UsageError } from '../errors.js';
import type { ConfigReader } from './reader.js';
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
  /** `--allow-insecure-http`. */
  allowInsecureHttp?: boolean;
}

export interface ResolvedSettings {
  /** The profile in use (null when none is named or current). */
  profile: Resolved<string | null>;
  /** Whether that profile exists in the store. */
  profileExists: boolean;
  baseUrl: Resolved<string | null>;
  apiKey: Resolved<string | null>;
  /**
   * Whether plain http:// to a host that is not this machine is allowed: by the flag, or by
   * the profile whose URL is in use (its opt-in goes with its URL, never with another one).
   */
  allowInsecureHttp: Resolved<boolean>;
}

export interface ResolveInput {
  flags: SettingsFlags;
  env: NodeJS.ProcessEnv;
  store: ConfigReader;
}

const nonEmpty = (value: string | undefined): string | undefined =>
  value !== undefined && value.trim() !== '' ? value.trim() : undefined;

/**
 * Resolves base URL, key and profile: flags > environment (`CAMROLL_BASE_URL`, `CAMROLL_API_KEY`,
 * `CAMROLL_PROFILE`) > stored profile. A profile named by the --profile flag is itself a flag:
 * its URL and key are used together and never mixed with the environment's, so `--profile
 * production` never pairs the production URL with a key left in the environment for another
 * host (only `--base-url` outranks its URL).
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
  const fromProfile = (value: string | undefined): Resolved<string> | undefined =>
    value === undefined ? undefined : { value, source: 'profile' };
  const fromEnv = (value: string | undefined, check: (v: string) => string = (v) => v): Resolved<string> | undefined =>
    value === undefined ? undefined : { value: check(value), source: 'env' };
  const flagUrl = nonEmpty(flags.baseUrl);
  const flagBaseUrl: Resolved<string> | undefined =
    flagUrl === undefined ? undefined : { value: validateBaseUrl(flagUrl), source: 'flag' };
  const none: Resolved<null> = { value: null, source: 'none' };
  const insecure = (baseUrl: Resolved<string | null>): Resolved<boolean> => {
    if (flags.allowInsecureHttp === true) return { value: true, source: 'flag' };
    if (baseUrl.source === 'profile' && stored?.allow_insecure_http === true) return { value: true, source: 'profile' };
    return { value: false, source: 'none' };
  };

  if (profile.source === 'flag') {
    const baseUrl = flagBaseUrl ?? fromProfile(stored?.base_url) ?? none;
    return {
      profile,
      profileExists: stored !== null,
      baseUrl,
      apiKey: fromProfile(stored?.api_key) ?? none,
      allowInsecureHttp: insecure(baseUrl),
    };
  }
  const baseUrl =
    flagBaseUrl ?? fromEnv(nonEmpty(env.CAMROLL_BASE_URL), validateBaseUrl) ?? fromProfile(stored?.base_url) ?? none;
  return {
    profile,
    profileExists: stored !== null,
    baseUrl,
    apiKey: fromEnv(nonEmpty(env.CAMROLL_API_KEY)) ?? fromProfile(stored?.api_key) ?? none,
    allowInsecureHttp: insecure(baseUrl),
  };
}

/** Where a command's requests go, once the settings are resolved. */
export type TargetDecision =
  | { kind: 'remote'; baseUrl: string; apiKey: string | null; allowInsecureHttp: boolean }
  /** `why` names the reason when a profile is in effect but has no URL (said on stderr). */
  | { kind: 'embedded'; why: string | null };

const setUrlHint = (name: string): string => `camroll config set-url <url> --profile ${name}`;

/**
 * Decides the target from resolved settings, or throws the error that says what to set.
 * A profile named by --profile or CAMROLL_PROFILE must exist and have a URL; one named by
 * --profile must also hold its own key. A current profile with no URL (a file from an older
 * camroll) leaves the embedded service in use, and `why` says so.
 */
export function decideTarget(settings: ResolvedSettings, options: { requireKey: boolean }): TargetDecision {
  const { profile, baseUrl, apiKey } = settings;
  const name = profile.value;
  const named = profile.source === 'flag' || profile.source === 'env';
  if (name !== null && named && !settings.profileExists) {
    const message = `no profile named "${name}"; create it with \`${setUrlHint(name)}\``;
    // Named by --profile it is a bad flag value (exit 2), whatever else is set: falling back to
    // another host would be a surprise. Named by CAMROLL_PROFILE it is a configuration error,
    // unless a base URL is set anyway.
    if (profile.source === 'flag') throw new UsageError(message);
    if (baseUrl.value === null) throw new ConfigError('unknown_profile', message);
  }
  if (baseUrl.value === null) {
    if (name === null || !settings.profileExists) return { kind: 'embedded', why: null };
    if (named) {
      throw new ConfigError(
        'profile_without_url',
        `profile "${name}" has no base URL; set one with \`${setUrlHint(name)}\`, or name no profile to use the ` +
          `embedded local service`,
      );
    }
    return {
      kind: 'embedded',
      why: `the current profile "${name}" has no base URL (set one with \`${setUrlHint(name)}\`)`,
    };
  }
  if (apiKey.value === null && options.requireKey) {
    const where = name === null || profile.source === 'none' ? '' : ` --profile ${name}`;
    const pairing =
      profile.source === 'flag'
        ? `profile "${name}" holds no API key (a named profile's URL is only used with its own key); `
        : '';
    const fallback = profile.source === 'flag' ? '' : ' or set CAMROLL_API_KEY';
    throw new ConfigError(
      'missing_api_key',
      `${pairing}no API key for ${baseUrl.value}; store one with \`camroll config set-key${where}\` (reads it from ` +
        `stdin)${fallback}`,
    );
  }
  return {
    kind: 'remote',
    baseUrl: baseUrl.value,
    apiKey: apiKey.value,
    allowInsecureHttp: settings.allowInsecureHttp.value,
  };
}
