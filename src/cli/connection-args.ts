import type { z } from 'zod';
import { EVENTS_PAGE_MAX, UserId } from '../contract/index.js';
import { UsageError } from '../errors.js';
import { isValidEmail, normalizeEmail } from '../rules/email.js';

/** Checks a `--user` value: a UUID, as the service issues. */
export function parseUserId(value: string | undefined): string {
  if (value === undefined) throw new UsageError('--user <uuid> is required');
  if (!UserId.safeParse(value).success) throw new UsageError(`--user must be a UUID: ${value}`);
  return value;
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

/**
 * A commander value parser for a whole-number flag. A bad value is a usage error that names
 * the flag and the range, in the words of the help (never a validator's own text).
 */
export function wholeNumber(flag: string, min: number, max: number): (value: string) => number {
  return (value) => {
    const n = /^\s*\d+\s*$/.test(value) ? Number(value) : Number.NaN;
    if (!Number.isSafeInteger(n) || n < min || n > max) {
      throw new UsageError(`${flag} must be a whole number from ${min} to ${max}, not "${value}"`);
    }
    return n;
  };
}

/**
 * A usage error for the first problem a flags schema found, in flag words: `--report must not
 * be empty`. Numeric flags are checked by `wholeNumber` as they are parsed, so what is left
 * here is text (empty values) and types commander already guarantees.
 */
export function flagsError(error: z.ZodError): UsageError {
  const issue = error.issues[0];
  const flag = `--${String(issue?.path[0] ?? '').replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;
  if (issue?.code === 'too_small' && issue.origin === 'string') return new UsageError(`${flag} must not be empty`);
  return new UsageError(`${flag} has a value camroll cannot use; see --help`);
}
