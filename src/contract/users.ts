import { z } from 'zod';
import { Instant } from './media.js';

/**
 * Longest profile members, in characters. The contract fixes none of them (only the asset id's
 * 255); these are this service's own, each far past any real value and short enough that a
 * profile stays a small row. Longer is 400 `invalid_request` naming the member, except the
 * phone number, which the contract says never makes the call fail: a longer one is ignored.
 */
export const PROFILE_MAX_LENGTH = {
  partner_user_id: 255,
  first_name: 255,
  last_name: 255,
  phone_number: 64,
  city: 255,
  region: 255,
  postal_code: 32,
  country: 255,
} as const;

const upTo = (max: number) => z.string().max(max);

export const Address = z.object({
  city: upTo(PROFILE_MAX_LENGTH.city).optional(),
  region: upTo(PROFILE_MAX_LENGTH.region).optional(),
  postal_code: upTo(PROFILE_MAX_LENGTH.postal_code).optional(),
  country: upTo(PROFILE_MAX_LENGTH.country).optional(),
});
export type Address = z.infer<typeof Address>;

/** Body of POST /users. */
export const UserCreateRequest = z.object({
  email: z.string(),
  partner_user_id: upTo(PROFILE_MAX_LENGTH.partner_user_id).optional(),
  first_name: upTo(PROFILE_MAX_LENGTH.first_name).optional(),
  last_name: upTo(PROFILE_MAX_LENGTH.last_name).optional(),
  phone_number: upTo(PROFILE_MAX_LENGTH.phone_number).optional(),
  address: Address.optional(),
});
export type UserCreateRequest = z.infer<typeof UserCreateRequest>;

export const UserCreateResponse = z.object({
  user_id: z.uuid(),
  existing: z.boolean(),
  created_at: Instant,
});
export type UserCreateResponse = z.infer<typeof UserCreateResponse>;

/** A user id in a path. */
export const UserId = z.uuid();
