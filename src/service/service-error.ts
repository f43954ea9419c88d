import { ERROR_STATUS, type ErrorCode } from '../contract/errors.js';
import { CamrollError, type CamrollErrorOptions } from '../errors.js';

/**
 * Codes the embedded service may answer with beyond the published table. A body over the
 * byte limit is not a batch of more than 200 items, so it gets its own code (413); clients
 * handle an unknown code by its status, which is the contract's rule anyway (a 503 or 408 is
 * retried with backoff like any 5xx or timeout).
 */
export const SERVICE_ONLY_STATUS = {
  payload_too_large: 413,
  request_header_too_large: 431,
  request_timeout: 408,
  // Shed under load, or the store could not get its lock or connection in time; sent with Retry-After.
  service_unavailable: 503,
} as const;

export type ServiceErrorCode = ErrorCode | keyof typeof SERVICE_ONLY_STATUS;

/** Status of a service error code. */
export function statusOf(code: ServiceErrorCode): number {
  return code in ERROR_STATUS
    ? ERROR_STATUS[code as ErrorCode]
    : SERVICE_ONLY_STATUS[code as keyof typeof SERVICE_ONLY_STATUS];
}

/** A failure the service turns into the error envelope with the code's status. */
export class ServiceError extends CamrollError {
  readonly status: number;
  /** Extra response headers (Allow, Retry-After). */
  readonly headers: Record<string, string>;

  constructor(
    code: ServiceErrorCode,
    message: string,
    options: CamrollErrorOptions & { headers?: Record<string, string> } = {},
  ) {
    super(code, message, options);
    this.status = statusOf(code);
    this.headers = options.headers ?? {};
  }
}

/** The envelope body for a service error. `details` appears only when it says something. */
export function envelopeOf(error: ServiceError): {
  error: { code: string; message: string; details?: Record<string, unknown> };
} {
  const body: { code: string; message: string; details?: Record<string, unknown> } = {
    code: error.code,
    message: error.message,
  };
  if (error.details) body.details = error.details;
  return { error: body };
}
