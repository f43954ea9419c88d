import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { nearEmails, openUserDirectory, readUserDirectory, type UserDirectory } from '../../src/config/index.js';
import { IMPORT_CHUNK_ROWS } from '../../src/config/user-directory.js';
import { editDistance } from '../../src/config/near-emails.js';

const dirs: string[] = [];
const opened: UserDirectory[] = [];
afterEach(() => {
  while (opened.length > 0) opened.pop()?.close();
  while (dirs.length > 0) rmSync(dirs.pop() as string, { recursive: true, force: true });
});

const PROD = 'https://api.example.com/v1';
const SANDBOX = 'https://sandbox.example.com/v1';
const ID_A = '3f1c2a8e-4b5d-4c6e-8f90-123456789abc';
const ID_B = '9b2d7c1e-0f3a-4e5b-8c6d-abcdefabcdef';

function open(
  options: { legacy?: Record<string, Record<string, string>>; onTaken?: () => void; clock?: string[] } = {},
) {
  const dir = mkdtempSync(join(tmpdir(), 'camroll-directory-'));
  dirs.push(dir);
  const times = options.clock ?? [];
  let i = 0;
  const directory = openUserDirectory({
    path: join(dir, 'users.sqlite3'),
    now: () => new Date(times[Math.min(i++, times.length - 1)] ?? '2026-11-24T10:00:00Z'),
    ...(options.legacy ? { legacy: () => options.legacy!, legacyTaken: options.onTaken } : {}),
  });
  opened.push(directory);
  return { directory, dir };
}

describe('the user directory', () => {
  it('keeps an id per target and normalized e-mail; a lookup refreshes last seen', () => {
    const { directory } = open({ clock: ['2026-01-01T00:00:00.000Z', '2026-02-01T00:00:00.000Z'] });
    directory.remember({ target: PROD, email: ' Someone@Example.com ', userId: ID_A, source: 'created' });
    expect(directory.lookup(SANDBOX, 'someone@example.com')).toBeNull();
    expect(directory.lookup(PROD, 'SOMEONE@example.com')).toEqual({
      target: PROD,
      email: 'someone@example.com',
      userId: ID_A,
      firstSeen: '2026-01-01T00:00:00.000Z',
      lastSeen: '2026-02-01T00:00:00.000Z',
      source: 'created',
    });
  });

  it('finds an e-mail at every target, forgets it at one or all', () => {
    const { directory } = open();
    directory.remember({ target: PROD, email: 'a@example.com', userId: ID_A, source: 'found' });
    directory.remember({ target: SANDBOX, email: 'a@example.com', userId: ID_B, source: 'created' });
    expect(
      directory
        .find('A@example.com')
        .map((e) => e.target)
        .sort(),
    ).toEqual([PROD, SANDBOX]);
    expect(directory.forget('a@example.com', SANDBOX)).toBe(1);
    expect(directory.find('a@example.com').map((e) => e.target)).toEqual([PROD]);
    expect(directory.forget('a@example.com')).toBe(1);
    expect([...directory.list()]).toEqual([]);
  });

  it('imports many at once, counting what was new, changed or already known', () => {
    const { directory } = open();
    directory.remember({ target: PROD, email: 'known@example.com', userId: ID_A, source: 'created' });
    directory.remember({ target: PROD, email: 'moved@example.com', userId: ID_A, source: 'created' });
    const counts = directory.rememberAll([
      { target: PROD, email: 'known@example.com', userId: ID_A, source: 'import' },
      { target: PROD, email: 'moved@example.com', userId: ID_B, source: 'import' },
      { target: PROD, email: 'new@example.com', userId: ID_B, source: 'import' },
    ]);
    expect(counts).toEqual({ added: 1, updated: 1, unchanged: 1 });
    // What was already known keeps how it became known; a changed id is the import's.
    expect(directory.lookup(PROD, 'known@example.com')?.source).toBe('created');
    expect(directory.lookup(PROD, 'moved@example.com')).toMatchObject({ userId: ID_B, source: 'import' });
  });

  it('an import commits in chunks: a lookup by another camroll in the middle of one reads what is committed', () => {
    const { directory } = open();
    const email = (n: number): string => `u${n}@example.com`;
    const total = IMPORT_CHUNK_ROWS * 3 + 1;
    const during = IMPORT_CHUNK_ROWS * 3 - 1;
    let seen: unknown[] | null = null;
    function* rows() {
      for (let n = 0; n < total; n += 1) {
        if (n === during) {
          // Another process's `--email` lookup, while this import writes its third chunk; a
          // lookup kept waiting would fail with `locked` after the (short) busy timeout.
          const reader = readUserDirectory({ path: directory.path, busyTimeoutMs: 200 });
          try {
            seen = [
              reader.get(PROD, email(0))?.userId,
              reader.get(PROD, email(IMPORT_CHUNK_ROWS * 2 - 1))?.userId,
              reader.get(PROD, email(IMPORT_CHUNK_ROWS * 2)),
            ];
          } finally {
            reader.close();
          }
        }
        yield { target: PROD, email: email(n), userId: ID_A, source: 'import' as const };
      }
    }
    expect(directory.rememberAll(rows())).toEqual({ added: total, updated: 0, unchanged: 0 });
    // The first two chunks were committed; the third was still being written.
    expect(seen).toEqual([ID_A, ID_A, null]);
    expect(directory.get(PROD, email(total - 1))?.userId).toBe(ID_A);
  });

  it('a directory another camroll keeps locked is said as busy, not as unreadable', () => {
    const { directory } = open();
    directory.remember({ target: PROD, email: 'a@example.com', userId: ID_A, source: 'created' });
    const holder = new Database(directory.path);
    holder.exec('BEGIN EXCLUSIVE');
    try {
      expect(() => readUserDirectory({ path: directory.path, busyTimeoutMs: 50 })).toThrow(
        expect.objectContaining({
          code: 'locked',
          message: `another camroll is writing the user directory (${directory.path}); try again`,
        }),
      );
    } finally {
      holder.exec('ROLLBACK');
      holder.close();
    }
  });

  it('a write another camroll keeps waiting is said as busy, not as an internal error', () => {
    const dir = mkdtempSync(join(tmpdir(), 'camroll-directory-'));
    dirs.push(dir);
    const directory = openUserDirectory({ path: join(dir, 'users.sqlite3'), busyTimeoutMs: 50 });
    opened.push(directory);
    directory.remember({ target: PROD, email: 'a@example.com', userId: ID_A, source: 'created' });
    const holder = new Database(directory.path);
    holder.exec('BEGIN EXCLUSIVE');
    const locked = expect.objectContaining({
      code: 'locked',
      message: `another camroll is writing the user directory (${directory.path}); try again`,
    });
    try {
      expect(() =>
        directory.remember({ target: PROD, email: 'b@example.com', userId: ID_B, source: 'created' }),
      ).toThrow(locked);
      expect(() => directory.lookup(PROD, 'a@example.com')).toThrow(locked);
      expect(() =>
        directory.rememberAll([{ target: PROD, email: 'c@example.com', userId: ID_B, source: 'import' }]),
      ).toThrow(locked);
      expect(() => directory.forget('a@example.com')).toThrow(locked);
    } finally {
      holder.exec('ROLLBACK');
      holder.close();
    }
    // Nothing was lost or half written: once the lock is gone the writes go through.
    expect(directory.get(PROD, 'a@example.com')?.userId).toBe(ID_A);
    expect(directory.rememberAll([{ target: PROD, email: 'c@example.com', userId: ID_B, source: 'import' }])).toEqual({
      added: 1,
      updated: 0,
      unchanged: 0,
    });
  });

  it('takes over the ids an older camroll kept in config.json, once', () => {
    let taken = 0;
    const { directory } = open({ legacy: { [PROD]: { 'old@example.com': ID_A } }, onTaken: () => (taken += 1) });
    expect(directory.lookup(PROD, 'old@example.com')?.userId).toBe(ID_A);
    expect(taken).toBe(1);
  });

  it('is a file of mode 0600', () => {
    const { directory } = open();
    directory.remember({ target: PROD, email: 'a@example.com', userId: ID_A, source: 'found' });
    expect(statSync(directory.path).mode & 0o777).toBe(0o600);
  });

  it('keeps a rollback journal from the moment it is opened: no -wal or -shm file, no switch at close', () => {
    const { directory, dir } = open();
    directory.remember({ target: PROD, email: 'a@example.com', userId: ID_A, source: 'found' });
    // Another connection sees the mode the file is in while the writer has it open.
    const peek = new Database(directory.path, { readonly: true });
    expect(peek.pragma('journal_mode', { simple: true })).toBe('delete');
    peek.close();
    expect(readdirSync(dir)).toEqual(['users.sqlite3']);
  });

  it('refuses a directory written by a newer camroll, saying to upgrade', () => {
    const { directory } = open();
    const path = directory.path;
    directory.close();
    opened.pop();
    const db = new Database(path);
    db.pragma('user_version = 99');
    db.close();
    expect(() => openUserDirectory({ path })).toThrow(expect.objectContaining({ code: 'directory_too_new' }));
  });

  it('reads without writing: a missing directory is empty and not created; a read changes no file', () => {
    const dir = mkdtempSync(join(tmpdir(), 'camroll-directory-'));
    dirs.push(dir);
    const path = join(dir, 'sub', 'users.sqlite3');
    const missing = readUserDirectory({ path });
    expect([
      missing.get(PROD, 'a@example.com'),
      missing.find('a@example.com'),
      [...missing.list()],
      [...missing.emailsAt(PROD)],
    ]).toEqual([null, [], [], []]);
    missing.close();
    expect(readdirSync(dir)).toEqual([]);

    const writer = openUserDirectory({ path, now: () => new Date('2026-01-01T00:00:00Z') });
    writer.remember({ target: PROD, email: 'a@example.com', userId: ID_A, source: 'created' });
    writer.remember({ target: PROD, email: 'b@example.com', userId: ID_B, source: 'created' });
    writer.close();
    const files = (): string[] =>
      readdirSync(join(dir, 'sub')).map((f) => `${f} ${statSync(join(dir, 'sub', f)).mtimeMs}`);
    const before = files();
    expect(before).toHaveLength(1);
    const reader = readUserDirectory({ path });
    expect(reader.get(PROD, 'A@example.com')).toMatchObject({ userId: ID_A, lastSeen: '2026-01-01T00:00:00.000Z' });
    expect([...reader.emailsAt(PROD)]).toEqual(['a@example.com', 'b@example.com']);
    expect(reader.find('b@example.com').map((e) => e.target)).toEqual([PROD]);
    reader.close();
    expect(files()).toEqual(before);
  });
});

describe('near e-mails', () => {
  it.each([
    ['kitten', 'sitting', 3],
    ['fan@example.com', 'fan@exmaple.com', 1],
    ['fan@example.com', 'fna@example.com', 1],
    ['abc', 'abc', 0],
    ['', 'ab', 2],
  ])('%s -> %s: %i edits', (a, b, edits) => {
    expect(editDistance(a, b)).toBe(edits);
  });

  it('offers the closest e-mails within two edits (one for short ones), only the closest', () => {
    const known = [
      'real.fan@example.com',
      'real.fun@example.com',
      'other@example.com',
      'a@b.io',
      'real.fan@example.org',
    ];
    expect(nearEmails('Real.Fna@example.com', known)).toEqual(['real.fan@example.com']);
    expect(nearEmails('real.fxn@example.com', known)).toEqual(['real.fan@example.com', 'real.fun@example.com']);
    expect(nearEmails('real.fan@exmaple.cmo', known)).toEqual(['real.fan@example.com']);
    expect(nearEmails('real.fan@example.com', known)).toEqual(['real.fun@example.com']);
    expect(nearEmails('a@b.i', ['a@c.i', 'a@cd.i'])).toEqual(['a@c.i']);
    expect(nearEmails('nobody@example.net', known)).toEqual([]);
  });
});
