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
