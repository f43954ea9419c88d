import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { ConfigError } from '../errors.js';
import { describeFsError } from '../util/fs-error.js';
import { StoredConfig } from './schema.js';

/** Where the configuration file lives: a folder, defaulting to camroll's config folder. */
export interface ConfigLocation {
  /** Folder of the configuration file: camroll's config folder (`ctx.paths.config`), or a temp one in tests. */
  cwd: string;
}

/**
 * The read side of the configuration store: what a command that only reads its settings
 * needs (every client command). It reads the file conf writes, as conf reads it, without
 * loading conf (with its schema validator, ~70 ms of start-up): conf is loaded to write.
 */
export interface ConfigReader {
  readonly path: string;
  /** The checked document: read and parsed at the first call, the same value after (treat it as read only). */
  read(): StoredConfig;
  /** User ids an older camroll kept here (target -> e-mail -> id); the user directory takes them over. */
  legacyUsers(): Record<string, Record<string, string>>;
  /** Drops what was read, so the next read sees the file again: after a write. */
  forget(): void;
}

/** The configuration file of a folder (conf's name for it). */
export function configFilePath(cwd: string): string {
  return resolve(cwd, 'config.json');
}

/**
 * The document in the file as conf reads it (its `store`): parsed JSON copied into an object
 * without prototype, and an empty one when the file does not exist yet. Unlike conf, a read
 * makes no folder: a command that only reads its settings leaves the machine as it was (conf
 * makes the folder when it writes). Any other failure is thrown as it came (a file-system
 * error, a SyntaxError).
 */
export function readConfigDocument(path: string): Record<string, unknown> {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException | null)?.code !== 'ENOENT') throw error;
    return Object.create(null) as Record<string, unknown>;
  }
  return Object.assign(Object.create(null) as Record<string, unknown>, JSON.parse(text));
}

/** Reads and checks the configuration at `path`: ConfigError `config_unreadable` or `config_invalid` naming it. */
export function readStoredConfig(path: string): StoredConfig {
  let raw: unknown;
  try {
    raw = readConfigDocument(path);
  } catch (error) {
    throw unreadableConfig(path, error);
  }
  const parsed = StoredConfig.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new ConfigError(
      'config_invalid',
      `the configuration at ${path} is invalid at ${issue?.path.join('.') || '(root)'}: ${issue?.message ?? ''}; fix or remove the file`,
    );
  }
  return parsed.data;
}

/**
 * A reader of the configuration file; nothing is read until `read()`, and the file is read and
 * checked once: a command makes one reader (`commandConfig(ctx)`, src/cli/command-config.ts)
 * and every part of it that needs a setting asks that one. A file that cannot be read fails
 * every read with the same error.
 */
export function createConfigReader(options: ConfigLocation): ConfigReader {
  const path = configFilePath(options.cwd);
  let outcome: { config: StoredConfig } | { error: unknown } | null = null;
  const read = (): StoredConfig => {
    if (outcome === null) {
      try {
        outcome = { config: readStoredConfig(path) };
      } catch (error) {
        outcome = { error };
      }
    }
    if ('error' in outcome) throw outcome.error;
    return outcome.config;
  };
  return {
    path,
    read,
    legacyUsers: () => read().users,
    forget: () => {
      outcome = null;
    },
  };
}

/** The error of a configuration file that cannot be read or parsed. */
export function unreadableConfig(path: string, error: unknown): ConfigError {
  const code = (error as NodeJS.ErrnoException | null)?.code;
  // A file-system error in words (`permission denied (EACCES)`); anything else (bad JSON) as its parser says it.
  const reason =
    typeof code === 'string'
      ? describeFsError(error as NodeJS.ErrnoException)
      : error instanceof Error
        ? error.message
        : String(error);
  return new ConfigError(
    'config_unreadable',
    `cannot read the configuration at ${path}: ${reason}; fix or remove the file`,
    { cause: error },
  );
}
