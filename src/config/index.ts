export { maskKey } from './mask.js';
export { readSecret } from './read-secret.js';
export type { ReadSecretOptions, SecretAnswer } from './read-secret.js';
export { decideTarget, resolveSettings } from './resolve.js';
export type { Resolved, ResolvedSettings, ResolveInput, SettingsFlags, Source, TargetDecision } from './resolve.js';
export {
  normalizeEmail,
  ProfileName,
  StoredConfig,
  StoredProfile,
  validateBaseUrl,
  validateProfileName,
} from './schema.js';
export { configFilePath, createConfigReader } from './reader.js';
export type { ConfigLocation, ConfigReader } from './reader.js';
export { createConfigStore, DEFAULT_PROFILE } from './store.js';
export type { ConfigStore, ConfigStoreOptions } from './store.js';
export { nearEmails } from './near-emails.js';
export { openUserDirectory, readUserDirectory } from './user-directory.js';
export type {
  DirectoryEntry,
  EntrySource,
  RememberInput,
  UserDirectory,
  UserDirectoryReader,
} from './user-directory.js';
