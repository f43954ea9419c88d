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

/** Failures the next attempt would meet again: a name that does not resolve, a refused certificate. */
export const PERMANENT_NETWORK_CODES: ReadonlySet<string> = new Set(['ENOTFOUND', ...CERTIFICATE_CODES]);

/** Failures where no HTTP answer came back at all (the host may be gone). */
export const CONNECTION_CODES: ReadonlySet<string> = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EHOSTDOWN',
  'ETIMEDOUT',
  'EAI_AGAIN',
  'UND_ERR_SOCKET',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_CLOSED',
]);
