import type { z } from 'zod';
import { UsageError } from '../errors.js';

// Flag values in flag words. Apart from the contract (and so from zod, about 70 ms to load):
// `camroll scan` parses its numbers here and never needs a schema.

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
