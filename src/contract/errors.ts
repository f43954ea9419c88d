import { z } from 'zod';

/** Every failed request carries this body. Clients branch on `error.code`. */
export const ErrorEnvelope = z.object({
  error: z.object({
    code: z.string(),
    message: z.string(),
    details: z.record(z.string(), z.unknown()).nullable().optional(),
  }),
});
export type ErrorEnvelope = z.infer<typeof ErrorEnvelope>;

/** Published codes with their statuses (the contract's, and the decisions' for the open ones). */
export const ERROR_STATUS = {
  invalid_api_key: 401,
  user_not_found: 404,
  invalid_email: 400,
  empty_batch: 400,
  invalid_batch_size: 413,
  invalid_media_item: 400,
  invalid_cursor: 400,
  rate_limited: 429,
  internal_error: 500,
  unsupported_media_type: 415,
  invalid_request: 400,
  not_found: 404,
  method_not_allowed: 405,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;
