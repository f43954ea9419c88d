import { describe, expect, it } from 'vitest';
import { nextPageCommand } from '../../../src/cli/commands/events.js';

const USER = '3f1c2a8e-4b5d-4c6e-8f90-123456789abc';

describe('the "More:" hint of events', () => {
  it.each([
    [{ media: true }, `camroll events --user ${USER} --cursor c1`],
    [
      { media: false, limit: '50', baseUrl: 'https://sandbox.example.com/v1', profile: 'sandbox' },
      `camroll events --user ${USER} --cursor c1 --base-url https://sandbox.example.com/v1 --profile sandbox --limit ` +
        `50 --no-media`,
    ],
  ])('carries the flags that shape the next page: %j', (flags, expected) => {
    expect(nextPageCommand(USER, 'c1', flags)).toBe(expected);
  });

  it('quotes a cursor a shell would split, and says nothing on the last page', () => {
    expect(nextPageCommand(USER, "a b'c", { media: true })).toBe(`camroll events --user ${USER} --cursor 'a b'\\''c'`);
    expect(nextPageCommand(USER, null, { media: true })).toBeNull();
  });
});
