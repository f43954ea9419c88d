import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { jsonLine, notice, noticeLine, warningLine } from '../../../src/cli/output/emit.js';

describe('emit', () => {
  it('a notice and a warning read as every command prints them', () => {
    expect(noticeLine('full pass for user u')).toBe('camroll: full pass for user u');
    const line = warningLine('2024/a.jpg', 'no capture time', 'missing_taken_at');
    expect(line).toBe('camroll: warning: 2024/a.jpg: no capture time [missing_taken_at]');
  });

  it('notice writes one whole line', () => {
    const stream = new PassThrough();
    notice(stream, 'report file exists: appending');
    expect(stream.read()?.toString()).toBe('camroll: report file exists: appending\n');
  });

  it('the --json document is indented JSON ending in a newline', () => {
    expect(jsonLine({ ok: true, n: [1] })).toBe('{\n  "ok": true,\n  "n": [\n    1\n  ]\n}\n');
  });
});
