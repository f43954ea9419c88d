export { createClient } from './client.js';
export type {
  ApiClient,
  CallOptions,
  ClientOptions,
  EventsOptions,
  RequestTrace,
  RetryNotice,
  WaitNotice,
} from './client.js';
export { DEFAULT_RETRY_POLICY, backoffDelay, decideRetry, parseRetryAfter, resolveRetryPolicy } from './retry.js';
export type { RequestRetryPolicy, RetryDecision, RetryInput } from './retry.js';
export { HealthResult, PingResult, SyncCompleteResult, readRateLimit } from './schemas.js';
export { abortableSleep } from './sleep.js';
export type { Sleep } from './sleep.js';
