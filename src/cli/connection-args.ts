import { EVENTS_PAGE_MAX, UserId } from '../contract/index.js';
import { UsageError } from '../errors.js';
import { isValidEmail, normalizeEmail } from '../rules/email.js';

/** Refuses `--user` and `--email` together: a command is about one user, named one way. */
export function refuseBothUserFlags(flags: { user?: string | undefined; email?: string | undefined }): void {
  if (flags.user !== undefined && flags.email !== undefined)
    throw new UsageError('give either --user or --email, not both');
}

/**
 * Checks a `--user` value: a UUID, returned in lower case as the service issues it. UUIDs are
 * case-insensitive, and the id keys the sync journal: `ABC…` and `abc…` are one user, one journal.
 */
export function parseUserId(value: string | undefined): string {
  if (value === undefined) throw new UsageError('--user <uuid> is required');
  if (!UserId.safeParse(value).success) throw new UsageError(`--user must be a UUID: ${value}`);
  return value.toLowerCase();
}

/** Whether a text is an e-mail address (the rule `--email` is checked by). */
export function isEmail(value: string): boolean {
  return isValidEmail(normalizeEmail(value));
}

/** Checks an `--email` value. */
export function parseEmail(value: string | undefined): string {
  if (value === undefined) throw new UsageError('--email <email> is required');
  if (!isEmail(value)) throw new UsageError(`not a valid e-mail address: ${value}`);
  return value.trim();
}

/** Checks a `--limit` value: a whole number from 1 to 100. */
export function parseLimit(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = /^\d+$/.test(value.trim()) ? Number(value) : Number.NaN;
  if (!Number.isInteger(n) || n < 1 || n > EVENTS_PAGE_MAX) {
    throw new UsageError(`--limit must be a whole number from 1 to ${EVENTS_PAGE_MAX}: ${value}`);
  }
  return n;
}
