import { z } from 'zod';
import { Instant } from './media.js';

export const Address = z.object({
  city: z.string().optional(),
  region: z.string().optional(),
  postal_code: z.string().optional(),
  country: z.string().optional(),
});
export type Address = z.infer<typeof Address>;

/** Body of POST /users. */
export const UserCreateRequest = z.object({
  email: z.string(),
  partner_user_id: z.string().optional(),
  first_name: z.string().optional(),
  last_name: z.string().optional(),
  phone_number: z.string().optional(),
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
