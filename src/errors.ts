/**
 * The one error model of camroll. Every failure that crosses a module boundary is a
 * CamrollError with a stable string `code`; only src/cli/ turns errors into exit codes
 * and printed messages.
 */
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

/** Base class: a stable machine-readable `code`, a message for humans, an optional cause. */
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

/** Configuration is missing or invalid (a profile, a base URL, a key). */
export class ConfigError extends CamrollError {
  constructor(code: string, message: string, options: CamrollErrorOptions = {}) {
    super(code, message, options);
  }
}

/** A file or folder could not be read or parsed during a scan. */
export class ScanError extends CamrollError {
  readonly path: string;

  constructor(code: string, path: string, message: string, options: CamrollErrorOptions = {}) {
    super(code, message, options);
    this.path = path;
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

/** Turns anything thrown into a CamrollError, keeping the original as `cause`. */
export function toCamrollError(error: unknown): CamrollError {
  if (error instanceof CamrollError) return error;
  const message = error instanceof Error ? error.message : String(error);
  return new CamrollError('internal_error', message, { cause: error });
}
