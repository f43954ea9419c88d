import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { describeRetry } from '../../src/cli/connection.js';
import { networkErrorFrom } from '../../src/client/http-errors.js';
import { NetworkError } from '../../src/errors.js';
import { formatSeconds } from '../../src/util/seconds.js';

describe('formatSeconds', () => {
  it('shows a tenth of a second; short drops a tenth of zero', () => {
    expect(formatSeconds(12_345)).toBe('12.3 s');
    expect(formatSeconds(1_000)).toBe('1.0 s');
    expect(formatSeconds(49)).toBe('0.0 s');
    expect(formatSeconds(1_000, { short: true })).toBe('1 s');
    expect(formatSeconds(500, { short: true })).toBe('0.5 s');
    expect(formatSeconds(30_000, { short: true })).toBe('30 s');
  });

  it('words the client errors and the retry notice as before', () => {
    const timeout = (ms: number): string =>
      networkErrorFrom(
        Object.assign(new Error('Headers Timeout Error'), { code: 'UND_ERR_HEADERS_TIMEOUT' }),
        'GET x',
        null,
        undefined,
        ms,
      ).message;
    expect([timeout(30_000), timeout(1_500), timeout(250)]).toEqual([
      'GET x failed: no answer within 30 s',
      'GET x failed: no answer within 1.5 s',
      'GET x failed: no answer within 0.3 s',
    ]);
    const retry = (delayMs: number): string =>
      describeRetry({ endpoint: 'GET x', attempt: 1, delayMs, error: new NetworkError('ECONNRESET', 'reset') });
    expect([retry(1_000), retry(420), retry(9_940), retry(12_400), retry(30_000)]).toEqual([
      'reset [ECONNRESET]; retrying after 1.0 s (attempt 2)',
      'reset [ECONNRESET]; retrying after 0.4 s (attempt 2)',
      'reset [ECONNRESET]; retrying after 9.9 s (attempt 2)',
      'reset [ECONNRESET]; retrying after 12 s (attempt 2)',
      'reset [ECONNRESET]; retrying after 30 s (attempt 2)',
    ]);
  });

  it('is the one place seconds are worded: no module divides milliseconds into tenths itself', () => {
    const root = join(import.meta.dirname, '..', '..', 'src');
    const copies = readdirSync(root, { recursive: true, encoding: 'utf8' }).filter(
      (file) =>
        /\.ts$/.test(file) && /\/ 100\) \/ 10\b|\/ 1000\)\.toFixed\(/.test(readFileSync(join(root, file), 'utf8')),
    );
    expect(copies).toEqual([]);
  });
});
