import { describe, expect, it } from 'vitest';
import { isEmail } from '../../src/cli/connection-args.js';
import { normalizeEmail as configNormalize } from '../../src/config/index.js';
import { isValidEmail, MAX_EMAIL_OCTETS, normalizeEmail } from '../../src/rules/email.js';

describe('the one e-mail rule', () => {
  it.each([
    'jörg@example.de',
    'user@müller.de',
    'a#b@example.com',
    "o'brien+tag@example.co.uk",
    '用户@例子.广告',
    'δοκιμή@παράδειγμα.δοκιμή',
    '"john doe"@example.com',
    'user@[192.0.2.1]',
    'user@xn--mller-kva.de',
    'a!#$%&*+-/=?^_`{|}~@example.com',
  ])('accepts %j (RFC 5321/6531)', (email) => {
    expect(isValidEmail(email)).toBe(true);
    expect(isEmail(email)).toBe(true);
  });

  it.each([
    '',
    'plain',
    'a@b',
    '@example.com',
    'a@',
    'a@@example.com',
    'a b@example.com',
    'a@example..com',
    '.a@example.com',
    'a.@example.com',
    'a@-example.com',
    `${'x'.repeat(65)}@example.com`,
    `a@${'d'.repeat(250)}.com`,
    'a\ud800@example.com',
    'Ann <ann@example.com>',
  ])('refuses %j', (email) => {
    expect(isValidEmail(email)).toBe(false);
    expect(isEmail(email)).toBe(false);
  });

  it(`caps the address at ${MAX_EMAIL_OCTETS} octets of UTF-8`, () => {
    const local = 'x'.repeat(60);
    const fits = `${local}@${'a'.repeat(63)}.${'b'.repeat(63)}.${'c'.repeat(MAX_EMAIL_OCTETS - 192)}.de`;
    expect(Buffer.byteLength(fits)).toBe(MAX_EMAIL_OCTETS);
    expect(isValidEmail(fits)).toBe(true);
    expect(isValidEmail(`x${fits}`)).toBe(false);
  });

  it('normalises by trimming, NFC and case, the same for the client and the service', () => {
    expect(normalizeEmail('  Jörg@Example.DE \n')).toBe('jörg@example.de');
    // A decomposed ö (o + combining diaeresis) is the same address as the composed one.
    expect(normalizeEmail('jo\u0308rg@example.de')).toBe(normalizeEmail('JÖRG@example.de'));
    expect(configNormalize).toBe(normalizeEmail);
  });
});
