import { z } from 'zod';
import { ConfigError } from '../errors.js';
import { checkBaseUrl } from '../rules/base-url.js';

/** A profile name: short, no spaces or path characters (it may appear in a file name later). */
export const ProfileName = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/, 'a profile name is letters, digits, ".", "_" or "-" (at most 64)');

export const StoredProfile = z.object({
  /** Used whole, version prefix included. */
  base_url: z.string().optional(),
  api_key: z.string().min(1).optional(),
  /**
   * Set by `config set-url <http://remote…> --allow-insecure-http`: plain http:// to this
   * profile's URL is the user's choice (only while that URL is the one in use).
   */
  allow_insecure_http: z.boolean().optional(),
});
export type StoredProfile = z.infer<typeof StoredProfile>;

/** The whole configuration file. Unknown members are kept out, so a typo never turns into a setting. */
export const StoredConfig = z.object({
  current_profile: z.string().nullable().default(null),
  profiles: z.record(z.string(), StoredProfile).default({}),
  /** Remembered user ids: target (base URL or embedded store) -> normalized e-mail -> user id. */
  users: z.record(z.string(), z.record(z.string(), z.string())).default({}),
});
export type StoredConfig = z.infer<typeof StoredConfig>;

/** Checks a base URL (the one rule of src/rules/base-url.ts) and returns it without trailing slashes. */
export const validateBaseUrl: (value: string) => string = checkBaseUrl;

/** Checks a profile name, as a ConfigError naming the rule. */
export function validateProfileName(name: string): string {
  const parsed = ProfileName.safeParse(name);
  if (!parsed.success)
    throw new ConfigError(
      'invalid_profile',
      `invalid profile name "${name}": ${parsed.error.issues[0]?.message ?? ''}`,
    );
  return parsed.data;
}

/** The e-mail as the service identifies it (the one rule, src/rules/email.ts). */
export { normalizeEmail } from '../rules/email.js';
