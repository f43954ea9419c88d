import isEmailModule from 'validator/lib/isEmail.js';

// A CommonJS module whose types declare an ES default: its function is on `.default` both ways.
const isEmail = isEmailModule.default;

// In a `u` regex a lone surrogate is a code point of category Cs; a paired one is not.
const LONE_SURROGATE = /\p{Cs}/u;

/** Longest address in octets: RFC 5321's 256-octet path less its angle brackets. */
export const MAX_EMAIL_OCTETS = 254;

/**
 * The e-mail as the service identifies a user: trimmed, in Unicode NFC (so a composed and a
 * decomposed "ö" are one address) and lower-cased (identity is case-insensitive). The one
 * normalisation, shared by the service and the client's user directory.
 */
export function normalizeEmail(email: string): string {
  return email.trim().normalize('NFC').toLowerCase();
}

/**
 * Whether a text is an e-mail address as RFC 5321 and RFC 6531 accept it: UTF-8 in the local
 * part (`jörg@…`), internationalised domains (`user@müller.de`), every `atext` character
 * (`a#b@…`), quoted local parts and address literals (`user@[192.0.2.1]`). Domains need a
 * top-level label of two or more characters, as every deliverable internet address has.
 * Checked by `validator`'s isEmail, the one validator both sides use.
 */
export function isValidEmail(email: string): boolean {
  // Lone UTF-16 surrogates have no UTF-8 form (the validator would throw on them).
  if (LONE_SURROGATE.test(email)) return false;
  if (Buffer.byteLength(email, 'utf8') > MAX_EMAIL_OCTETS) return false;
  return isEmail(email, {
    allow_utf8_local_part: true,
    allow_ip_domain: true,
    allow_display_name: false,
    require_tld: true,
  });
}
