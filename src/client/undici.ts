import { createRequire } from 'node:module';
import type { Agent as UndiciAgent, Dispatcher } from 'undici';

/*
 * The two parts of undici the client uses, loaded alone. undici's index also loads fetch,
 * WebSocket, EventSource, its caches, interceptors and mocks: ~60 ms of a sync's busiest
 * thread at every start, against ~20 ms for these two. The classes are the index's own (one
 * module cache), so a MockAgent from 'undici' still drives the client in tests.
 */
const require = createRequire(import.meta.url);

/** undici's Agent: a keep-alive connection pool per origin. */
export const Agent = require('undici/lib/dispatcher/agent.js') as typeof UndiciAgent;
export type Agent = UndiciAgent;

/** undici's own limit for opening a connection (TLS included): 10 s whatever the request timeout. */
const MAX_CONNECT_TIMEOUT_MS = 10 * 1000; // 10 s

/**
 * An Agent's `connect` options for a request timeout: a shorter timeout shortens the connect
 * limit too, so a host that takes the connection and never finishes the TLS handshake does not
 * outlast `--timeout 2`.
 */
export function connectOptions(timeoutMs: number): { timeout: number } {
  return { timeout: Math.min(timeoutMs, MAX_CONNECT_TIMEOUT_MS) };
}

const apiRequest = require('undici/lib/api/api-request.js') as (
  this: Dispatcher,
  options: Dispatcher.RequestOptions,
) => Promise<Dispatcher.ResponseData>;

/**
 * undici's `request(url, options)` on an explicit dispatcher (the index's form without its URL checks, which a URL
 * passes).
 */
export function request(
  url: URL,
  options: Omit<Dispatcher.RequestOptions, 'origin' | 'path'> & { dispatcher: Dispatcher },
): Promise<Dispatcher.ResponseData> {
  const { dispatcher, ...rest } = options;
  return apiRequest.call(dispatcher, { ...rest, origin: url.origin, path: `${url.pathname}${url.search}` });
}
