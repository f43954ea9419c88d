import { describe, expect, it } from 'vitest';
import { createClient } from '../../src/client/index.js';
import { validateBaseUrl } from '../../src/config/index.js';
import { healthWarning, SANDBOX_WARNING } from '../../src/cli/commands/ping.js';
import { checkBaseUrl, isLoopbackUrl } from '../../src/rules/base-url.js';

describe('the one base-URL rule', () => {
  it.each([
    ['https://api.example.com/v1', 'https://api.example.com/v1'],
    ['  https://api.example.com/v1//  ', 'https://api.example.com/v1'],
    ['http://127.0.0.1:8787/v1', 'http://127.0.0.1:8787/v1'],
    // used whole: another prefix, or none, is the user's choice (doctor and hints point at a missing one)
    ['https://api.example.com/partner/v2', 'https://api.example.com/partner/v2'],
    ['https://api.example.com', 'https://api.example.com'],
  ])('accepts %j as %j', (input, expected) => {
    expect(checkBaseUrl(input)).toBe(expected);
  });

  it.each([
    ['not a url', 'not a valid URL'],
    ['ftp://api.example.com/v1', 'must start with http:// or https://'],
    ['https://user:secret@api.example.com/v1', 'must not carry credentials'],
    ['https://api.example.com/v1?key=x', 'must not carry a query or fragment'],
    ['https://api.example.com/v1#top', 'must not carry a query or fragment'],
  ])('refuses %j', (input, reason) => {
    expect(() => checkBaseUrl(input)).toThrow(reason);
    expect(() => checkBaseUrl(input)).toThrow(expect.objectContaining({ code: 'invalid_base_url' }));
  });

  it('is the rule of the configuration and of the client alike', () => {
    for (const input of ['https://user:secret@api.example.com/v1', 'https://api.example.com/v1?x=1']) {
      expect(() => validateBaseUrl(input)).toThrow(expect.objectContaining({ code: 'invalid_base_url' }));
      expect(() => createClient({ baseUrl: input, apiKey: null })).toThrow(
        expect.objectContaining({ code: 'invalid_base_url' }),
      );
    }
    expect(createClient({ baseUrl: 'https://api.example.com/v1/', apiKey: null }).baseUrl).toBe(
      validateBaseUrl('https://api.example.com/v1/'),
    );
  });

  it('never echoes credentials', () => {
    expect(() => checkBaseUrl('https://user:secret@api.example.com/v1')).toThrow(
      expect.not.objectContaining({ message: expect.stringContaining('secret') }),
    );
  });
});

describe('a base URL on this machine', () => {
  it.each([
    ['http://127.0.0.1:8787/v1', true],
    ['http://127.1.2.3/v1', true],
    ['http://localhost:8787/v1', true],
    ['http://LOCALHOST/v1', true],
    // a name under .localhost may still be asked of DNS: only `localhost` itself counts
    ['http://api.localhost/v1', false],
    ['http://[::1]:8787/v1', true],
    ['https://sandbox.example.com/v1', false],
    ['http://10.0.0.5/v1', false],
    ['http://127.0.0.1.example.com/v1', false],
    ['http://localhost.example.com/v1', false],
    ['not a url', false],
  ])('%s: %s', (url, loopback) => {
    expect(isLoopbackUrl(url)).toBe(loopback);
  });
});

describe('the sandbox warning of health', () => {
  it.each([
    ['sandbox', 'remote', 'https://sandbox.example.com/v1', SANDBOX_WARNING],
    ['production', 'remote', 'https://api.example.com/v1', null],
    ['sandbox', 'remote', 'http://127.0.0.1:8787/v1', null],
    ['sandbox', 'remote', 'http://localhost:8787/v1', null],
    ['sandbox', 'embedded', 'http://127.0.0.1:40000/v1', null],
  ] as const)('%s key, %s %s', (environment, kind, baseUrl, warning) => {
    expect(healthWarning({ environment }, { kind, baseUrl })).toBe(warning);
  });
});
