import { describe, expect, it } from 'vitest';
import { parseDirectoryLine, splitCsv } from '../../src/cli/user-import.js';

const ID = '3f1c2a8e-4b5d-4c6e-8f90-123456789abc';

describe('import lines', () => {
  it.each([
    ['', null, { kind: 'blank' }],
    ['email,user_id', null, { kind: 'header', emailIndex: 0, idIndex: 1 }],
    ['\uFEFFUser ID;E-mail;Name', null, { kind: 'header', emailIndex: 1, idIndex: 0 }],
    [`a@example.com,${ID}`, null, { kind: 'entry', email: 'a@example.com', userId: ID }],
    [`"a@example.com","${ID}"`, null, { kind: 'entry', email: 'a@example.com', userId: ID }],
    [`{"email": "a@example.com", "user_id": "${ID}"}`, null, { kind: 'entry', email: 'a@example.com', userId: ID }],
    ['{"email": "a@example.com"}', null, { kind: 'bad', reason: 'needs string members "email" and "user_id"' }],
    ['{not json', null, { kind: 'bad', reason: 'not a JSON object' }],
    ['email,name', null, { kind: 'bad', reason: 'a header needs both an e-mail and a user_id column' }],
    ['a@example.com', null, { kind: 'bad', reason: 'needs an e-mail and a user id' }],
  ] as const)('%j', (line, header, expected) => {
    expect(parseDirectoryLine(line, header)).toEqual(expected);
  });

  it('reads columns by the header', () => {
    expect(parseDirectoryLine(`x,${ID},b@example.com`, { kind: 'header', emailIndex: 2, idIndex: 1 })).toEqual({
      kind: 'entry',
      email: 'b@example.com',
      userId: ID,
    });
  });

  it('splits quoted CSV fields with commas and doubled quotes', () => {
    expect(splitCsv('"Doe, Jane","say ""hi""",plain')).toEqual(['Doe, Jane', 'say "hi"', 'plain']);
  });
});
