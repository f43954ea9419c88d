import { CommanderError } from 'commander';
import { describe, expect, it } from 'vitest';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { describeFailure, exitCodeFor } from '../../src/cli/exit.js';
import {
  ApiError,
  CamrollError,
  CLIENT_ERROR_CODES,
  InterruptedError,
  OutputError,
  UsageError,
} from '../../src/errors.js';
import { ERROR_STATUS } from '../../src/contract/errors.js';
import { FILE_ERROR_CODES } from '../../src/scan/extract/errors.js';
import { SERVICE_ONLY_STATUS } from '../../src/service/service-error.js';

describe('exitCodeFor', () => {
  it.each([
    ['usage error', new UsageError('bad flag'), 2],
    ['commander usage error', new CommanderError(1, 'commander.unknownOption', 'x'), 2],
    ['help', new CommanderError(0, 'commander.helpDisplayed', '(outputHelp)'), 0],
    ['help command', new CommanderError(0, 'commander.help', '(outputHelp)'), 0],
    ['help for a missing command', new CommanderError(1, 'commander.help', '(outputHelp)'), 2],
    ['interrupt', new InterruptedError(), 130],
    ['api error', new ApiError(500, 'internal_error', 'boom'), 1],
    ['other camroll error', new CamrollError('x', 'y'), 1],
    ['plain error', new Error('z'), 1],
  ])('%s', (_name, error, code) => {
    expect(exitCodeFor(error)).toBe(code);
  });
});

describe('describeFailure: nothing raw reaches the user', () => {
  it('a validator error (ZodError) is one line naming the first issue, as an internal error to report', () => {
    const parsed = z.object({ limit: z.number().int() }).safeParse({ limit: 'ten' });
    expect(parsed.success).toBe(false);
    const text = describeFailure(parsed.error, 'events')!;
    expect(text.split('\n')).toEqual([
      expect.stringMatching(/^camroll: invalid value at limit: .+ \[internal_error\]$/),
      '  this is a bug in camroll: please report it with the command you ran and this message',
      '',
    ]);
    expect(text).not.toContain('"code"');
  });

  it('a RangeError is one line with its kind, never a stack', () => {
    let error: unknown;
    try {
      Math.max(...new Array(500_000).fill(1));
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(RangeError);
    const text = describeFailure(error, 'events')!;
    expect(text.split('\n')[0]).toBe('camroll: RangeError: Maximum call stack size exceeded [internal_error]');
    expect(text).not.toMatch(/^\s+at /m);
    expect(exitCodeFor(error)).toBe(1);
  });

  it('a camroll error keeps its own code and next step', () => {
    const text = describeFailure(
      new OutputError('report_write_failed', 'cannot write the report file r: no space left on the device (ENOSPC)'),
      'scan',
    );
    expect(text).toBe(
      'camroll: cannot write the report file r: no space left on the device (ENOSPC) [report_write_failed]\n',
    );
  });
});

describe('the client-side error codes', () => {
  /** Every .ts file of src/, with its path relative to src/. */
  const sources = (): { file: string; text: string }[] => {
    const root = join(import.meta.dirname, '..', '..', 'src');
    return readdirSync(root, { recursive: true, encoding: 'utf8' })
      .filter((file) => /\.c?ts$/.test(file))
      .map((file) => ({ file, text: readFileSync(join(root, file), 'utf8') }));
  };
  /**
   * Every .ts file of the client side: all of src/ but the embedded service, which answers with the contract's codes.
   */
  const clientSources = (): { file: string; text: string }[] =>
    sources().filter(({ file }) => !file.startsWith('service'));

  it('every code a client-side module raises is listed in src/errors.ts, and none builds a bare CamrollError', () => {
    const known = new Set<string>(Object.values(CLIENT_ERROR_CODES).flat());
    const raised: string[] = [];
    for (const { file, text } of clientSources()) {
      if (file === 'errors.ts') continue;
      expect(text, file).not.toMatch(/new CamrollError\(/);
      for (const match of text.matchAll(/new (?!ApiError|NetworkError)(\w+Error)\(\s*'([a-z_]+)'/g))
        raised.push(`${match[1]}:${match[2]}`);
    }
    expect(raised.length).toBeGreaterThan(20);
    expect(raised.filter((entry) => !known.has(entry.split(':')[1]!))).toEqual([]);
  });

  it(
    'the embedded service raises its start-up codes from src/errors.ts and answers only wire codes of the contract, ' +
      'and builds no bare CamrollError',
    () => {
      const known = new Set<string>(Object.values(CLIENT_ERROR_CODES).flat());
      const wire = new Set<string>([...Object.keys(ERROR_STATUS), ...Object.keys(SERVICE_ONLY_STATUS)]);
      const raised: string[] = [];
      const answered: string[] = [];
      for (const { file, text } of sources().filter(({ file }) => file.startsWith('service'))) {
        expect(text, file).not.toMatch(/new CamrollError\(/);
        for (const match of text.matchAll(/new (\w+Error)\(\s*'([a-z_]+)'/g)) {
          (match[1] === 'ServiceError' ? answered : raised).push(`${file} ${match[1]}:${match[2]}`);
        }
      }
      expect(raised.length).toBeGreaterThan(5);
      expect(answered.length).toBeGreaterThan(10);
      expect(raised.filter((entry) => !known.has(entry.split(':')[1]!))).toEqual([]);
      expect(answered.filter((entry) => !wire.has(entry.split(':')[1]!))).toEqual([]);
    },
  );

  it('the service start-up codes are one family, and the scan codes are the file error codes', () => {
    expect(CLIENT_ERROR_CODES.startup).toEqual(
      expect.arrayContaining(['invalid_keys', 'invalid_catalog', 'database_unavailable']),
    );
    expect(Object.keys(FILE_ERROR_CODES)).toEqual([...CLIENT_ERROR_CODES.scan]);
  });
});
