/**
 * The one error model of camroll, and every error code the client side and the embedded
 * service's start-up raise, in one file (as undici keeps its errors): one class per family,
 * each with the stable string `code`s it may carry. Only src/cli/ turns errors into exit codes
 * and printed messages. Other lists of these codes are derived from this one, never copied
 * (FILE_ERROR_CODES in src/scan/extract/errors.ts is the `scan` family).
 *
 * Wire codes (what the service answers in an error envelope) are the contract's, in
 * src/contract/errors.ts (and src/service/service-error.ts for the service-only ones). Two
 * families carry codes from elsewhere: ApiError the service's own `error.code` (the
 * contract's, or any other a service sends), NetworkError the operating system's or undici's
 * (`ECONNREFUSED`, `UND_ERR_CONNECT_TIMEOUT`, see src/client/network-codes.ts).
 */
export const CLIENT_ERROR_CODES = {
  /** A bad flag, argument or combination of them (exit 2). */
  usage: ['usage_error'],
  /** Ctrl-C or SIGTERM (exit 130). */
  interrupted: ['interrupted'],
  /** The stored configuration, or what the environment and flags say about it. */
  config: [
    'invalid_base_url',
    'invalid_profile',
    'invalid_api_key',
    'missing_api_key',
    'unknown_profile',
    'profile_without_url',
    'config_unreadable',
    'config_invalid',
    'config_unwritable',
  ],
  /**
   * What camroll keeps between runs (sync journals and their locks, the user directory, the
   * scan cache, the embedded service's database) cannot be used, or does not hold what was asked.
   */
  localState: [
    'locked',
    'lock_failed',
    'journal_error',
    'directory_unreadable',
    'directory_too_new',
    'unknown_email',
    'cache_unreadable',
    'cache_too_new',
    'database_unreadable',
    'database_too_new',
  ],
  /**
   * One media file that could not be read or parsed (a file that parses but carries no
   * metadata is not an error: it is media with nulls). `unsupported_format`: not an image or
   * video format camroll reads, whatever the extension; `corrupt_file`: a recognised format
   * whose structure is broken; `truncated_file`: the structure points past the end (an
   * interrupted copy or download); `empty_file`: no bytes at all; `read_error`: the operating
   * system refused or failed a read (may pass on its own: never cached); `internal_error`: a
   * defect in camroll's readers met on this file (cached like any answer for the same bytes).
   * For an archive member also `truncated_archive`, a download cut short before it, and
   * `archive_limit`, a member past the zip-bomb limits.
   */
  scan: [
    'unsupported_format',
    'corrupt_file',
    'truncated_file',
    'empty_file',
    'read_error',
    'internal_error',
    'truncated_archive',
    'archive_limit',
  ],
  /** A call the client refuses before sending anything. */
  request: ['invalid_request', 'invalid_batch_size'],
  /** The service answered outside the contract. */
  contract: ['contract_violation'],
  /** A file camroll writes for the user (`--report`, `--log-file`). */
  output: ['report_write_failed', 'log_write_failed'],
  /** The host went away during a sync (the sync's outage stop). */
  outage: ['host_unreachable'],
  /**
   * camroll's own network codes beside the system's and undici's: the base URL's scheme is not
   * what the server speaks (confirmed by a probe of the port; src/client/scheme-probe.ts).
   */
  schemeMismatch: ['server_speaks_plain_http', 'server_speaks_tls'],
  /** A reply that is not HTTP (llhttp's family, named by camroll: undici 7 sets no code on it). */
  notHttp: ['HPE_INVALID_RESPONSE'],
  /**
   * `camroll serve` cannot listen where it was told (a taken port, a privileged one, an address not on this machine).
   */
  listen: ['address_in_use', 'address_forbidden', 'address_unavailable'],
  /** The embedded local service could not be used. */
  embedded: ['embedded_no_key'],
  /**
   * The embedded service (`serve`, or in-process) cannot start: a bad keys file, catalog or
   * match settings, a database it cannot reach.
   */
  startup: ['invalid_keys', 'invalid_catalog', 'invalid_match_settings', 'database_unavailable'],
  /** A failure camroll did not foresee: a bug to report. */
  internal: ['internal_error'],
} as const;

type CodesOf<F extends keyof typeof CLIENT_ERROR_CODES> = (typeof CLIENT_ERROR_CODES)[F][number];
export type ConfigErrorCode = CodesOf<'config'>;
export type LocalStateErrorCode = CodesOf<'localState'>;
export type ScanErrorCode = CodesOf<'scan'>;
export type RequestErrorCode = CodesOf<'request'>;
export type OutputErrorCode = CodesOf<'output'>;
export type StartupErrorCode = CodesOf<'startup'>;
export type ListenErrorCode = CodesOf<'listen'>;
/** camroll's codes for a base URL whose scheme is not what its server speaks. */
export type SchemeMismatch = CodesOf<'schemeMismatch'>;

export interface CamrollErrorOptions {
  cause?: unknown;
  details?: Record<string, unknown> | null;
}

/** The request a client error belongs to (never its headers: they hold the key). */
export interface RequestInfo {
  method: string;
  /** The full URL called, query included. */
  url: string;
  /** The configured base URL it was built from (version prefix included). */
  baseUrl: string;
}

/** Options of the errors that belong to a request. */
export interface RequestErrorOptions extends CamrollErrorOptions {
  request?: RequestInfo | null;
}

/**
 * Base class: a stable machine-readable `code`, a message for humans, an optional cause.
 * The client side and the service's start-up raise one of the families below; the embedded
 * service answers requests with its own (`ServiceError`), built from the contract's codes.
 */
export class CamrollError extends Error {
  readonly code: string;
  readonly details: Record<string, unknown> | null;

  constructor(code: string, message: string, options: CamrollErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.code = code;
    this.details = options.details ?? null;
  }
}

/** Bad flag, argument or combination of them (exit code 2). */
export class UsageError extends CamrollError {
  constructor(message: string, options: CamrollErrorOptions = {}) {
    super('usage_error', message, options);
  }
}

/** The run was interrupted by SIGINT/SIGTERM (exit code 130). */
export class InterruptedError extends CamrollError {
  constructor(message = 'interrupted', options: CamrollErrorOptions = {}) {
    super('interrupted', message, options);
  }
}

/** A family whose members share one list of codes: the constructor takes only those. */
class CodedError<Code extends string> extends CamrollError {
  declare readonly code: Code;

  constructor(code: Code, message: string, options: CamrollErrorOptions = {}) {
    super(code, message, options);
  }
}

/** Configuration is missing or invalid (a profile, a base URL, a key), or its file cannot be used. */
export class ConfigError extends CodedError<ConfigErrorCode> {}

/**
 * A file camroll keeps between runs (journal, lock, user directory, scan cache, service database) cannot be used, or
 * lacks what was asked.
 */
export class LocalStateError extends CodedError<LocalStateErrorCode> {}

/** A file could not be read or parsed during a scan. */
export class ScanError extends CodedError<ScanErrorCode> {
  readonly path: string;

  constructor(code: ScanErrorCode, path: string, message: string, options: CamrollErrorOptions = {}) {
    super(code, message, options);
    this.path = path;
  }
}

/**
 * A zip that cannot be listed to its end, with a code of the `scan` family: a download cut
 * short (`truncated_archive`; `member` is the one it stops in, null between members) or a
 * file named .zip that holds no zip (`unsupported_format`).
 */
export class ArchiveError extends CodedError<ScanErrorCode> {
  readonly member: string | null;

  constructor(code: ScanErrorCode, member: string | null, message: string) {
    super(code, message);
    this.member = member;
  }
}

/** A call the client refuses to send (a batch of the wrong size, a body outside the contract). */
export class RequestError extends CodedError<RequestErrorCode> {}

/** A file written for the user (`--report`, `--log-file`) failed part way (a full disk). */
export class OutputError extends CodedError<OutputErrorCode> {}

/** A sync stopped because the host went away; the journal is consistent. */
export class OutageError extends CamrollError {
  constructor(message: string, options: CamrollErrorOptions = {}) {
    super('host_unreachable', message, options);
  }
}

/** `camroll serve` could not listen on its host and port; `details` holds both. */
export class ListenError extends CodedError<ListenErrorCode> {}

/** The embedded local service started but cannot be used. */
export class EmbeddedServiceError extends CamrollError {
  constructor(message: string, options: CamrollErrorOptions = {}) {
    super('embedded_no_key', message, options);
  }
}

/** The embedded service cannot start with what it was given (keys, catalog, database). */
export class StartupError extends CodedError<StartupErrorCode> {}

/** Something camroll did not foresee; the original is the `cause`. */
export class InternalError extends CamrollError {
  constructor(message: string, options: CamrollErrorOptions = {}) {
    super('internal_error', message, options);
  }
}

/**
 * The service answered with an error envelope (or a status without one). `code` is the
 * contract's `error.code`; an unknown code is still carried, and handled by `status`.
 */
export class ApiError extends CamrollError {
  readonly status: number;
  /** Seconds from a Retry-After header, when the service sent one. */
  readonly retryAfterSeconds: number | null;
  readonly request: RequestInfo | null;

  constructor(
    status: number,
    code: string,
    message: string,
    options: RequestErrorOptions & { retryAfterSeconds?: number | null } = {},
  ) {
    super(code, message, options);
    this.status = status;
    this.retryAfterSeconds = options.retryAfterSeconds ?? null;
    this.request = options.request ?? null;
  }
}

/** No answer: connection refused or reset, DNS failure, TLS failure, timeout. */
export class NetworkError extends CamrollError {
  readonly request: RequestInfo | null;

  constructor(code: string, message: string, options: RequestErrorOptions = {}) {
    super(code, message, options);
    this.request = options.request ?? null;
  }
}

/** The service answered, but the body breaks the contract (bad JSON, wrong shape). */
export class ContractViolationError extends CamrollError {
  readonly request: RequestInfo | null;

  constructor(message: string, options: RequestErrorOptions = {}) {
    super('contract_violation', message, options);
    this.request = options.request ?? null;
  }
}

/**
 * Turns anything thrown into a CamrollError, keeping the original as `cause`. A validator's
 * or the runtime's own error (a ZodError's JSON dump of issues, a RangeError) is summed up in
 * one line rather than shown as it is.
 */
export function toCamrollError(error: unknown): CamrollError {
  if (error instanceof CamrollError) return error;
  return new InternalError(summarize(error), { cause: error });
}

/** One line about an unforeseen error: its kind and the first line of its message, or its first issue. */
function summarize(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const issues = (error as { issues?: unknown }).issues;
  if (Array.isArray(issues) && issues.length > 0) {
    const first = issues[0] as { path?: unknown[]; message?: unknown };
    const where = Array.isArray(first.path) && first.path.length > 0 ? first.path.join('.') : '(root)';
    return `invalid value at ${where}: ${String(first.message ?? 'invalid')}`;
  }
  const line = error.message.split('\n')[0]?.trim() ?? '';
  return line === '' ? error.name : `${error.name}: ${line}`;
}
