export { maskKey } from './mask.js';
export { readSecret } from './read-secret.js';
export type { ReadSecretOptions, SecretAnswer } from './read-secret.js';
export { decideTarget, resolveSettings } from './resolve.js';
export type { Resolved, ResolvedSettings, ResolveInput, SettingsFlags, Source, TargetDecision } from './resolve.js';
export { normalizeEmail, ProfileName, StoredConfig, StoredProfile, validateBaseUrl, validateProfileName } from './schema.js';
export { createConfigStore, DEFAULT_PROFILE } from './store.js';
export type { ConfigStore, ConfigStoreOptions, UserMemory } from './store.js';
