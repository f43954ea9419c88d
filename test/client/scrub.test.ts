import { describe, expect, it } from 'vitest';
import { redact, scrubBody, scrubHeaders } from '../../src/client/scrub.js';

describe('scrubbing the key from what a host sends back', () => {
  it('removes the key as is, inside a JSON string (escaped) and percent-encoded', () => {
    const key = 'sk_a"b/c d\\e';
    expect(redact(`raw ${key}`, key)).toBe('raw [redacted]');
    expect(redact(`json ${JSON.stringify(key)}`, key)).toBe('json "[redacted]"');
    expect(redact(`url ?k=${encodeURIComponent(key)}`, key)).toBe('url ?k=[redacted]');
    expect(redact('nothing here', key)).toBe('nothing here');
    expect(redact('text', null)).toBe('text');
  });

  it('scrubs a JSON body string by string (member names too), keeping it JSON', () => {
    const key = 'sk_test_0123456789abcdef';
    const body = JSON.stringify({ error: { code: `bad_${key}`, details: { [key]: [key, 3] } } });
    expect(JSON.parse(scrubBody(body, key))).toEqual({
      error: { code: 'bad_[redacted]', details: { '[redacted]': ['[redacted]', 3] } },
    });
  });

  it('a key that looks like a number never breaks the JSON around it: numbers are not text', () => {
    const body = JSON.stringify({ total: 4242, name: 'gate 4242' });
    expect(JSON.parse(scrubBody(body, '4242'))).toEqual({ total: 4242, name: 'gate [redacted]' });
  });

  it('returns a body without the key untouched (not even reformatted), and scrubs text bodies as text', () => {
    const body = '{ "a" : 1 }';
    expect(scrubBody(body, 'sk_x')).toBe(body);
    expect(scrubBody('<h1>sk_x</h1>', 'sk_x')).toBe('<h1>[redacted]</h1>');
  });

  it('scrubs every header value', () => {
    expect(scrubHeaders({ a: 'k=sk_x', b: ['sk_x', 'y'], c: undefined }, 'sk_x')).toEqual({
      a: 'k=[redacted]',
      b: ['[redacted]', 'y'],
      c: undefined,
    });
  });
});
