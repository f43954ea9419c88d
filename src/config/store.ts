import { chmodSync } from 'node:fs';
import Conf from 'conf';
import { ConfigError } from '../errors.js';
import { describeFsError } from '../util/fs-error.js';
import { ensurePrivateFolder } from '../util/private-file.js';
import { isCleartextToRemote } from '../rules/base-url.js';
import {
  configFilePath,
  createConfigReader,
  readStoredConfig,
  unreadableConfig,
  type ConfigLocation,
  type ConfigReader,
} from './reader.js';
import { validateBaseUrl, validateProfileName, type StoredConfig, type StoredProfile } from './schema.js';

/** The profile a write goes to when none is named and none is current. */
export const DEFAULT_PROFILE = 'default';

export interface ConfigStoreOptions extends ConfigLocation {
  /**
   * The command's reader of the same file (`commandConfig(ctx)`, src/cli/command-config.ts): reads go
   * through it, and a write makes it read again.
   */
  reader?: ConfigReader;
}

/** Profiles, the current profile, and remembered user ids, in one conf file of mode 0600. */
export interface ConfigStore extends ConfigReader {
  currentProfile(): string | null;
  getProfile(name: string): StoredProfile | null;
  listProfiles(): { name: string; profile: StoredProfile; current: boolean }[];
  /**
   * Sets a profile's base URL (validated, used whole), creating the profile if needed. The
   * opt-in to plain http:// off this machine goes with the URL: set with it, dropped by the next.
   */
  setBaseUrl(profile: string, baseUrl: string, options?: { allowInsecureHttp?: boolean }): string;
  setApiKey(profile: string, apiKey: string): void;
  /** Returns false when the profile held no key. */
  unsetApiKey(profile: string): boolean;
  /** Returns false when no such profile existed. */
  removeProfile(profile: string): boolean;
  /** Makes a profile current; refuses one that does not exist or has no base URL. */
  useProfile(profile: string): void;
  /** Drops those once the user directory holds them. */
  dropLegacyUsers(): void;
}

/**
 * Opens (lazily) the configuration file. Nothing is written until a setter runs. Reads are
 * the reader's (src/config/reader.ts), once until a write; a write starts from the file read
 * again (read-modify-write spans only the write); conf writes, atomically and with the file's mode.
 */
export function createConfigStore(options: ConfigStoreOptions): ConfigStore {
  const cwd = options.cwd;
  const file = configFilePath(cwd);
  const reader = options.reader ?? createConfigReader({ cwd });
  let conf: Conf<Record<string, unknown>> | null = null;

  const open = (): Conf<Record<string, unknown>> => {
    if (conf) return conf;
    try {
      // Before conf, which makes the folder with the umask's mode (0755): it holds the key.
      ensurePrivateFolder(cwd);
      conf = new Conf<Record<string, unknown>>({
        cwd,
        configName: 'config',
        configFileMode: 0o600, // it holds API keys
        // Profile names and URLs contain dots: the document is handled whole, never by dotted keys.
        accessPropertiesByDotNotation: false,
      });
    } catch (error) {
      throw unreadableConfig(file, error);
    }
    return conf;
  };

  const read = (): StoredConfig => reader.read();

  const write = (next: StoredConfig): void => {
    const store = open();
    try {
      // Even a write that failed part way may have changed the file: the next read looks again.
      reader.forget();
      store.store = next as unknown as Record<string, unknown>;
      // conf sets the mode when it creates the file; a file made by hand or an older version may be wider.
      chmodSync(store.path, 0o600);
    } catch (error) {
      throw new ConfigError(
        'config_unwritable',
        `cannot write the configuration at ${store.path}: ${describeFsError(error as NodeJS.ErrnoException)}`,
        {
          cause: error,
        },
      );
    }
  };

  const update = (change: (config: StoredConfig) => void): void => {
    // From the file as it is now, not the command's reading: `set-key` waits at its prompt, and
    // what another camroll wrote meanwhile must survive. A value of its own, too: the reader's
    // is shared with every other part of the command.
    const config = readStoredConfig(file);
    change(config);
    write(config);
  };

  return {
    get path() {
      return open().path;
    },
    read,
    currentProfile: () => read().current_profile,
    getProfile: (name) => read().profiles[name] ?? null,
    listProfiles: () => {
      const config = read();
      return Object.entries(config.profiles)
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([name, profile]) => ({ name, profile, current: name === config.current_profile }));
    },
    setBaseUrl: (profile, baseUrl, options = {}) => {
      const name = validateProfileName(profile);
      const url = validateBaseUrl(baseUrl);
      // Kept only where it means something: plain http:// to a host that is not this machine.
      const insecure = options.allowInsecureHttp === true && isCleartextToRemote(url);
      update((config) => {
        const { allow_insecure_http: _dropped, ...kept } = config.profiles[name] ?? {};
        config.profiles[name] = { ...kept, base_url: url, ...(insecure ? { allow_insecure_http: true } : {}) };
        config.current_profile ??= name;
      });
      return url;
    },
    setApiKey: (profile, apiKey) => {
      const name = validateProfileName(profile);
      const key = apiKey.trim();
      if (key === '' || /\s/.test(key))
        throw new ConfigError('invalid_api_key', 'an API key is one word with no spaces');
      update((config) => {
        config.profiles[name] = { ...config.profiles[name], api_key: key };
        // A profile without a URL never becomes current: commands would silently use the
        // embedded service while `config list` showed this profile in use.
        if (config.profiles[name]?.base_url !== undefined) config.current_profile ??= name;
      });
    },
    unsetApiKey: (profile) => {
      let had = false;
      update((config) => {
        const entry = config.profiles[profile];
        if (entry?.api_key === undefined) return;
        had = true;
        delete entry.api_key;
      });
      return had;
    },
    removeProfile: (profile) => {
      let had = false;
      update((config) => {
        if (!(profile in config.profiles)) return;
        had = true;
        delete config.profiles[profile];
        if (config.current_profile === profile) config.current_profile = null;
      });
      return had;
    },
    useProfile: (profile) => {
      update((config) => {
        const entry = config.profiles[profile];
        if (entry === undefined) {
          throw new ConfigError(
            'unknown_profile',
            `no profile named "${profile}"; create it with \`camroll config set-url <url> --profile ${profile}\``,
          );
        }
        if (entry.base_url === undefined) {
          throw new ConfigError(
            'profile_without_url',
            `profile "${profile}" has no base URL, so it cannot be the current one; set one first with \`camroll ` +
              `config set-url <url> --profile ${profile}\``,
          );
        }
        config.current_profile = profile;
      });
    },
    legacyUsers: () => read().users,
    forget: () => reader.forget(),
    dropLegacyUsers: () =>
      update((config) => {
        config.users = {};
      }),
  };
}
