import { describe, expect, it } from 'vitest';
import { TIMEOUT_CODES } from '../../src/client/network-codes.js';
import { nextStep } from '../../src/cli/hints.js';
import { NetworkError } from '../../src/errors.js';

const request = { method: 'GET', url: 'https://api.example.com/v1/ping', baseUrl: 'https://api.example.com/v1' };

describe('the next step after a network failure', () => {
  it('a timeout the client names, or any other code named a timeout, says the host did not answer in time', () => {
    const said = 'https://api.example.com did not answer in time: check the network, or try again later';
    for (const code of [...TIMEOUT_CODES, 'ERR_SOCKET_CONNECTION_TIMEOUT']) {
      // The two undici waits for an answer have their own, more precise words.
      if (code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT') continue;
      expect(nextStep(new NetworkError(code, 'failed', { request })), code).toBe(said);
    }
    expect(nextStep(new NetworkError('ECONNRESET', 'failed', { request }))).toBe(
      'the connection to https://api.example.com failed: check the network and the base URL',
    );
  });
});

describe('the next step after a wrong scheme', () => {
  const plainAt = (baseUrl: string) =>
    nextStep(new NetworkError('server_speaks_plain_http', 'failed', { request: { ...request, baseUrl } }));

  it('on this machine: the http:// URL to use', () => {
    expect(plainAt('https://127.0.0.1:8787/v1')).toBe(
      'the server speaks plain HTTP: did you mean http://127.0.0.1:8787/v1?',
    );
  });

  it('elsewhere: the http:// URL, and that it takes the opt-in (the key would travel in clear text)', () => {
    expect(plainAt('https://api.example.com:8787/v1')).toBe(
      'the server speaks plain HTTP: did you mean http://api.example.com:8787/v1? (plain http:// to a host that is ' +
        'not this machine carries the key in clear text: it takes --allow-insecure-http)',
    );
  });
});
