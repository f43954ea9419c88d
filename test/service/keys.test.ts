import { describe, expect, it } from 'vitest';
import { KeysFile, MIN_KEY_LENGTH } from '../../src/service/keys.js';

describe('KeysFile: the shortest key a keys file may hold', () => {
  it("accepts the product decisions' own example, a short sandbox key", () => {
    const example = [
      {
        key: 'sk_test_abc',
        partner_id: 'acme',
        environment: 'sandbox',
        rate_limit: { limit: 100, window_seconds: 60 },
      },
    ];
    expect(KeysFile.safeParse(example).success).toBe(true);
  });

  it('refuses a production key shorter than 16 characters, naming the key member', () => {
    const result = KeysFile.safeParse([{ key: '7', partner_id: 'acme', environment: 'production' }]);
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]?.path).toEqual([0, 'key']);
    expect(result.error?.issues[0]?.message).toMatch(/production key is shorter than 16/);
  });

  it('accepts a production key of exactly the minimum length', () => {
    const key = 'k'.repeat(MIN_KEY_LENGTH);
    expect(KeysFile.safeParse([{ key, partner_id: 'acme', environment: 'production' }]).success).toBe(true);
    const shorter = key.slice(1);
    expect(KeysFile.safeParse([{ key: shorter, partner_id: 'acme', environment: 'production' }]).success).toBe(false);
  });
});
