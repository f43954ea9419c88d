import { CLIENT_ERROR_CODES } from '../errors.js';

/**
 * Network failure codes by what they mean for a caller, in one place: the retry policy, the
 * sync's outage stop, the CLI's hints and doctor all read them here.
 */

/** A certificate that was refused: waiting cannot heal it. */
export const CERTIFICATE_CODES: ReadonlySet<string> = new Set([
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'ERR_TLS_CERT_ALTNAME_INVALID',
]);

/**
 * The scheme does not match what the server speaks: https:// against a plain HTTP server, or
 * http:// against a TLS one (camroll's own codes, set once a probe of the port confirmed it).
 */
export const SCHEME_MISMATCH_CODES: ReadonlySet<string> = new Set(CLIENT_ERROR_CODES.schemeMismatch);

/**
 * Failures the next attempt would meet again: a name that does not resolve, a refused certificate, the wrong scheme.
 */
export const PERMANENT_NETWORK_CODES: ReadonlySet<string> = new Set([
  'ENOTFOUND',
  ...CERTIFICATE_CODES,
  ...SCHEME_MISMATCH_CODES,
]);

/**
 * The host took the connection (or was being connected to) and said nothing for a whole
 * `--timeout`: a hung server or a dead proxy. Retried once only, and counted as connection
 * failures by the sync's outage stop.
 */
export const TIMEOUT_CODES: ReadonlySet<string> = new Set([
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
  'UND_ERR_CONNECT_TIMEOUT',
  'ETIMEDOUT',
]);

/** Failures where no HTTP answer came back at all (the host may be gone). */
export const CONNECTION_CODES: ReadonlySet<string> = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EHOSTDOWN',
  // The machine's own network went (macOS and BSD say ENETDOWN for a dropped Wi-Fi, ECONNABORTED
  // for a connection the stack gave up on); uncounted, a sync went on failing batch after batch.
  'ENETDOWN',
  'ECONNABORTED',
  'EAI_AGAIN',
  'UND_ERR_SOCKET',
  'UND_ERR_CLOSED',
  ...TIMEOUT_CODES,
]);
