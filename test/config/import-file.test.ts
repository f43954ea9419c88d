import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import {
  createJsonSplitter,
  jsonEntry,
  parseDirectoryLine,
  readImportFile,
  splitCsv,
} from '../../src/config/import-file.js';
import { IMPORT_CHUNK_ROWS, type RememberInput } from '../../src/config/user-directory.js';

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

describe('import files', () => {
  const ID2 = '9b2d7c1e-0f3a-4e5b-8c6d-abcdefabcdef';
  const HERE = 'https://api.example.com/v1';

  /** Reads `text` as an import file: the entries and the problems reported. */
  async function read(
    text: string,
  ): Promise<{ entries: { target: string; email: string; userId: string }[]; problems: string[] }> {
    const dir = mkdtempSync(join(tmpdir(), 'camroll-import-'));
    try {
      const file = join(dir, 'f');
      writeFileSync(file, text);
      const problems: string[] = [];
      const entries: RememberInput[] = [];
      for await (const block of readImportFile(file, HERE, (p) => problems.push(p.replace(`${file}:`, ''))))
        entries.push(...block);
      return { entries: entries.map(({ target, email, userId }) => ({ target, email, userId })), problems };
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }

  it('reads the pretty JSON array users list --json prints, each entry at its own target', async () => {
    const listed = [
      { email: 'a@example.com', user_id: ID, target: 'embedded:/data/service.db', source: 'created' },
      { email: 'b@example.com', user_id: ID2, target: 'http://127.0.0.1:8787/v1', first_seen: 'x' },
      { email: 'c@example.com', user_id: ID2 },
    ];
    const pretty = `[\n${listed.map((e) => `  ${JSON.stringify(e)}`).join(',\n')}\n]\n`;
    const expected = [
      { target: 'embedded:/data/service.db', email: 'a@example.com', userId: ID },
      { target: 'http://127.0.0.1:8787/v1', email: 'b@example.com', userId: ID2 },
      { target: HERE, email: 'c@example.com', userId: ID2 },
    ];
    expect(await read(pretty)).toEqual({ entries: expected, problems: [] });
    expect(await read(JSON.stringify(listed, null, 4))).toEqual({ entries: expected, problems: [] });
    expect(await read(`\uFEFF${JSON.stringify(listed)}`)).toEqual({ entries: expected, problems: [] });
    expect(await read(listed.map((e) => JSON.stringify(e)).join('\r\n'))).toEqual({ entries: expected, problems: [] });
  });

  it('names the line of each bad JSON entry and keeps the rest', async () => {
    const text = [
      '[',
      `  {"email": "a@example.com", "user_id": "${ID}", "target": "ftp://x"},`,
      '  42,',
      `  {"email": "b@example.com", "note": "a } and a \\" inside", "user_id": "${ID2}"},`,
      `  {"email": "c@example.com"`,
    ].join('\n');
    expect(await read(text)).toEqual({
      entries: [{ target: HERE, email: 'b@example.com', userId: ID2 }],
      problems: [
        '2: not a target (a base URL, or embedded:<database file>): ftp://x',
        '3: not a JSON object',
        '5: a JSON object not closed before the end of the file',
      ],
    });
  });

  it('still reads CSV, with or without a header', async () => {
    expect(await read(`email,user_id\r\na@example.com,${ID}\r\nbad\r\n`)).toEqual({
      entries: [{ target: HERE, email: 'a@example.com', userId: ID }],
      problems: ['3: needs an e-mail and a user id'],
    });
  });

  it('reports a line whose quoting is broken and reads the lines after it', async () => {
    expect(
      await read(`email;user_id\n"a@example.com;${ID}\nb@example.com\t"${ID2}" x\n"c@example.com",${ID2}\n`),
    ).toEqual({
      entries: [{ target: HERE, email: 'c@example.com', userId: ID2 }],
      problems: [
        '2: a quoted field is not closed or is followed by text',
        '3: a quoted field is not closed or is followed by text',
      ],
    });
  });

  it('splits objects across chunk boundaries', () => {
    const splitter = createJsonSplitter();
    const text = `[{"a": "{["}, {"b": 1}]`;
    const pieces = [...text].flatMap((c) => splitter.push(c));
    expect(pieces).toEqual([
      { kind: 'object', text: '{"a": "{["}', line: 1 },
      { kind: 'object', text: '{"b": 1}', line: 1 },
    ]);
    expect(splitter.end()).toEqual([]);
  });
});

describe('a JSON entry', () => {
  it('is parsed once, its target read from the same object', () => {
    const parse = vi.spyOn(JSON, 'parse');
    try {
      const text = JSON.stringify({ email: 'a@example.com', user_id: ID, target: 'https://api.example.com/v1' });
      expect(jsonEntry(text)).toEqual({
        kind: 'entry',
        email: 'a@example.com',
        userId: ID,
        target: 'https://api.example.com/v1',
      });
      expect(parse).toHaveBeenCalledTimes(1);
      // A member named like the result's own fields is data, nothing more.
      expect(jsonEntry(JSON.stringify({ kind: 'bad', email: 'b@example.com', user_id: ID }))).toEqual({
        kind: 'entry',
        email: 'b@example.com',
        userId: ID,
      });
      expect(jsonEntry('[1]')).toEqual({ kind: 'bad', reason: 'not a JSON object' });
      expect(jsonEntry(JSON.stringify({ email: 'a@example.com', user_id: ID, target: 'ftp://x' }))).toMatchObject({
        kind: 'bad',
      });
    } finally {
      parse.mockRestore();
    }
  });

  it('hands a big file over in blocks the directory commits, never the whole file at once', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'camroll-import-'));
    try {
      const file = join(dir, 'big.csv');
      const total = IMPORT_CHUNK_ROWS * 2 + 5;
      const lines = ['email,user_id'];
      for (let n = 0; n < total; n += 1) lines.push(`u${n}@example.com,${ID}`);
      writeFileSync(file, `${lines.join('\n')}\n`);
      const sizes: number[] = [];
      let last = '';
      for await (const block of readImportFile(file, 'https://api.example.com/v1', () => undefined)) {
        sizes.push(block.length);
        last = block.at(-1)?.email ?? '';
      }
      expect(sizes).toEqual([IMPORT_CHUNK_ROWS, IMPORT_CHUNK_ROWS, 5]);
      expect(last).toBe(`u${total - 1}@example.com`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
