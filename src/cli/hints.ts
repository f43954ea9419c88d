import { CERTIFICATE_CODES, SCHEME_MISMATCH_CODES, TIMEOUT_CODES } from '../client/network-codes.js';
import { mismatchHint, type SchemeMismatch } from '../client/scheme-words.js';
import { isCleartextToRemote } from '../rules/base-url.js';
import {
  ApiError,
  CamrollError,
  ConfigError,
  ContractViolationError,
  ListenError,
  NetworkError,
  type RequestInfo,
} from '../errors.js';

/** A version segment such as `/v1` or `/v2beta` anywhere in a base URL's path. */
const VERSION_SEGMENT = /\/v\d+[a-z0-9]*(\/|$)/i;

/** `https://host/api/v1`, when the configured base URL lacks a version prefix. */
export function versionPrefixSuggestion(baseUrl: string): string | null {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    return null;
  }
  if (VERSION_SEGMENT.test(url.pathname)) return null;
  return `${baseUrl.replace(/\/+$/, '')}/v1`;
}

const KEY_HINT =
  'check the key and the environment it belongs to (sandbox or production): `camroll config show` says which key is ' +
  'used and where it comes from, `camroll health` which partner and environment a working key belongs to';

function forRequest(request: RequestInfo | null, hint: (request: RequestInfo) => string | null): string | null {
  return request === null ? null : hint(request);
}

/**
 * The next step for a failed call, where one exists: what to check, or the command to run.
 * Presentation only; the decision is by status and code, never by message text.
 */
export function nextStep(error: unknown): string | null {
  // The raiser knew more than the status and code tell (a stale directory entry, a near e-mail).
  if (error instanceof CamrollError && typeof error.details?.hint === 'string') return error.details.hint;
  if (error instanceof ConfigError && error.code === 'insecure_base_url') {
    return (
      'on a trusted network without TLS, opt in with --allow-insecure-http, or store the choice with `camroll config ' +
      'set-url <url> --allow-insecure-http`'
    );
  }
  if (error instanceof ApiError) {
    if (error.status === 401 || error.code === 'invalid_api_key') return KEY_HINT;
    if (error.status === 404 && error.code !== 'user_not_found') {
      const suggestion = forRequest(error.request, (r) => versionPrefixSuggestion(r.baseUrl));
      if (suggestion !== null) return `the base URL has no version prefix: did you mean ${suggestion}?`;
    }
    if (error.code === 'user_not_found') {
      return (
        'no such user under this key: users belong to the partner and environment (sandbox or production) of ' +
        'the key that created them'
      );
    }
    if (error.status === 429) return 'the service is throttling this key; wait and run the command again';
    if (error.status >= 500)
      return 'the service failed; run the command again later, and report the time and URL if it persists';
    return null;
  }
  if (error instanceof ContractViolationError) {
    const notJson = error.details?.not_json === true;
    const suggestion = forRequest(error.request, (r) => versionPrefixSuggestion(r.baseUrl));
    if (notJson && suggestion !== null) return `this is not the service's API: did you mean ${suggestion}?`;
    if (notJson) return 'this URL does not answer like the service (a login page or a proxy?): check the base URL';
    return 'the service answered outside the contract; report it with the URL and the time';
  }
  if (error instanceof ListenError) {
    const port = Number(error.details?.port);
    if (error.code === 'address_in_use') {
      return (
        `another program listens on port ${port} (another camroll serve?): pick another --port, or --port 0 for ` +
        `a free one`
      );
    }
    if (error.code === 'address_forbidden') {
      // From 1024 up the refusal is the system's policy (a reserved range, a security module).
      if (port >= 1024) {
        return (
          `the system does not let camroll listen on port ${port}: pick another --port, or --port 0 for a free ` + `one`
        );
      }
      return 'pick a port from 1024 up (the default is 8787), or --port 0 for a free one';
    }
    return '--host must be an address of this machine: 127.0.0.1 for this machine only, 0.0.0.0 for every interface';
  }
  if (error instanceof NetworkError) {
    const origin = forRequest(error.request, (r) => new URL(r.url).origin) ?? 'the host';
    if (error.code === 'ENOTFOUND' || error.code === 'EAI_AGAIN')
      return `the host name of ${origin} does not resolve: check the base URL`;
    if (error.code === 'ECONNREFUSED')
      return `nothing accepts connections at ${origin}: is the service running, and is the base URL right?`;
    if (SCHEME_MISMATCH_CODES.has(error.code) && error.request !== null) {
      const hint = mismatchHint(error.code as SchemeMismatch, error.request.baseUrl);
      // The URL it names would be refused without the opt-in: say so rather than send the user round.
      return error.code === 'server_speaks_plain_http' &&
        isCleartextToRemote(error.request.baseUrl.replace(/^https:/, 'http:'))
        ? `${hint} (plain http:// to a host that is not this machine carries the key in clear text: it takes ` +
            '--allow-insecure-http)'
        : hint;
    }
    if (error.code === 'UND_ERR_HEADERS_TIMEOUT' || error.code === 'UND_ERR_BODY_TIMEOUT') {
      return (
        `${origin} took the connection but did not answer (a hung server or proxy?): check the service, or ` +
        `raise --timeout if it is only slow`
      );
    }
    if (CERTIFICATE_CODES.has(error.code)) {
      return (
        `the TLS certificate of ${origin} was refused: check the host name, or add your CA with ` +
        `NODE_EXTRA_CA_CERTS`
      );
    }
    // Both: TIMEOUT_CODES holds ETIMEDOUT, which the pattern misses, and the pattern takes any other
    // code the system names a timeout (Node's ERR_SOCKET_CONNECTION_TIMEOUT).
    if (TIMEOUT_CODES.has(error.code) || /TIMEOUT/i.test(error.code))
      return `${origin} did not answer in time: check the network, or try again later`;
    return `the connection to ${origin} failed: check the network and the base URL`;
  }
  return null;
}
