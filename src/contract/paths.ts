/**
 * Paths relative to the base URL. The base URL carries the version prefix (`…/v1`) and is
 * always read whole from configuration: nothing here appends a version.
 */
export const paths = {
  ping: () => '/ping',
  health: () => '/health',
  users: () => '/users',
  media: (userId: string) => `/users/${encodeURIComponent(userId)}/media`,
  syncComplete: (userId: string) => `/users/${encodeURIComponent(userId)}/sync-complete`,
  events: (userId: string) => `/users/${encodeURIComponent(userId)}/events`,
  stats: (userId: string) => `/users/${encodeURIComponent(userId)}/stats`,
} as const;

/** The version prefix the embedded service mounts its routes under. */
export const VERSION_PREFIX = '/v1';

/** Header carrying the partner key. */
export const API_KEY_HEADER = 'x-partner-api-key';

/** The interface description's version. */
export const CONTRACT_VERSION = '1.0.0';
