import { chmodSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import {
  createConfigReader,
  createConfigStore,
  maskKey,
  readSecret,
  resolveSettings,
  type ConfigStore,
} from '../../src/config/index.js';
import { ConfigError } from '../../src/errors.js';

const dirs: string[] = [];
afterEach(() => {
  while (dirs.length > 0) rmSync(dirs.pop() as string, { recursive: true, force: true });
});

function tempStore(): ConfigStore {
  const dir = mkdtempSync(join(tmpdir(), 'camroll-config-'));
  dirs.push(dir);
  return createConfigStore({ cwd: dir });
}

const mode = (path: string): number => statSync(path).mode & 0o777;

describe('config store', () => {
  it('writes profiles to a file of mode 0600, even one that was wider before', () => {
    const store = tempStore();
    store.setBaseUrl('sandbox', 'https://sandbox.example.com/v1/');
    store.setApiKey('sandbox', 'sk_test_0123456789abcdef');
    expect(mode(store.path)).toBe(0o600);
    chmodSync(store.path, 0o644);
    store.setBaseUrl('production', 'https://api.example.com/v1');
    expect(mode(store.path)).toBe(0o600);
    const onDisk = JSON.parse(readFileSync(store.path, 'utf8'));
    expect(onDisk.profiles.sandbox).toEqual({
      base_url: 'https://sandbox.example.com/v1',
      api_key: 'sk_test_0123456789abcdef',
    });
    // The first profile written becomes current; later ones do not steal it.
    expect(onDisk.current_profile).toBe('sandbox');
  });

  it('switches, lists, unsets keys and removes profiles', () => {
    const store = tempStore();
    store.setBaseUrl('local', 'http://127.0.0.1:8787/v1');
    store.setBaseUrl('production', 'https://api.example.com/v1');
    store.setApiKey('production', 'sk_live_aaaaaaaaaaaa1234');
    store.useProfile('production');
    expect(store.listProfiles().map((p) => [p.name, p.current])).toEqual([
      ['local', false],
      ['production', true],
    ]);
    expect(store.unsetApiKey('production')).toBe(true);
    expect(store.unsetApiKey('production')).toBe(false);
    expect(store.removeProfile('production')).toBe(true);
    expect(store.currentProfile()).toBeNull();
    expect(() => store.useProfile('nope')).toThrow(ConfigError);
  });

  it('keeps a base URL whole and rejects what is not one', () => {
    const store = tempStore();
    expect(store.setBaseUrl('x', 'https://h.example.com/partner/v2//')).toBe('https://h.example.com/partner/v2');
    expect(() => store.setBaseUrl('x', 'ftp://h.example.com/v1')).toThrow(ConfigError);
    expect(() => store.setBaseUrl('x', 'not a url')).toThrow(ConfigError);
    expect(() => store.setBaseUrl('bad name', 'https://h.example.com/v1')).toThrow(ConfigError);
  });

  it('reports an unreadable file as ConfigError naming it', () => {
    const store = tempStore();
    store.setBaseUrl('x', 'https://h.example.com/v1');
    writeFileSync(store.path, '{ not json');
    const fresh = createConfigStore({ cwd: dirs[0]! });
    expect(() => fresh.read()).toThrow(/cannot read the configuration at/);
  });

  it('reports a hand-edited file of the wrong shape as config_invalid, naming the member', () => {
    const store = tempStore();
    store.setBaseUrl('x', 'https://h.example.com/v1');
    writeFileSync(
      store.path,
      JSON.stringify({ profiles: { x: { base_url: 'https://h.example.com/v1', api_key: 42 } } }),
    );
    const fresh = createConfigStore({ cwd: dirs[0]! });
    expect(() => fresh.read()).toThrow(
      expect.objectContaining({ code: 'config_invalid', message: expect.stringContaining('profiles.x.api_key') }),
    );
    expect(() => resolveSettings({ flags: {}, env: {}, store: fresh })).toThrow(ConfigError);
  });

  it(
    'the reader (no conf loaded) sees what the store wrote, an absent file as empty, and a broken one as ' +
      'config_unreadable',
    () => {
      const dir = mkdtempSync(join(tmpdir(), 'camroll-config-'));
      dirs.push(dir);
      const reader = createConfigReader({ cwd: join(dir, 'not-yet') });
      expect(reader.read().profiles).toEqual({});
      const store = createConfigStore({ cwd: dir });
      store.setBaseUrl('sandbox', 'https://sandbox.example.com/v1');
      const same = createConfigReader({ cwd: dir });
      expect(same.path).toBe(store.path);
      expect(same.read()).toEqual(store.read());
      writeFileSync(store.path, '{ not json');
      expect(() => createConfigReader({ cwd: dir }).read()).toThrow(
        expect.objectContaining({ code: 'config_unreadable', message: expect.stringContaining(store.path) }),
      );
    },
  );

  it('a reader reads the file once, until told to forget; a store sharing it makes it read again after a write', () => {
    const dir = mkdtempSync(join(tmpdir(), 'camroll-config-'));
    dirs.push(dir);
    createConfigStore({ cwd: dir }).setBaseUrl('first', 'https://first.example.com/v1');
    const reader = createConfigReader({ cwd: dir });
    const first = reader.read();
    // A change by another process during the command is not seen: one command, one reading.
    writeFileSync(reader.path, JSON.stringify({ current_profile: null, profiles: {}, users: {} }));
    expect(reader.read()).toBe(first);
    reader.forget();
    expect(reader.read().profiles).toEqual({});

    const store = createConfigStore({ cwd: dir, reader });
    store.setBaseUrl('second', 'https://second.example.com/v1');
    expect(reader.read().profiles).toEqual({ second: { base_url: 'https://second.example.com/v1' } });
    // A write works on a copy: what the reader handed out before is unchanged.
    const before = reader.read();
    store.setApiKey('second', 'sk_test_0123456789abcdef');
    expect(before.profiles.second).toEqual({ base_url: 'https://second.example.com/v1' });
    expect(reader.read().profiles.second?.api_key).toBe('sk_test_0123456789abcdef');
    expect(mode(reader.path)).toBe(0o600);
  });

  it('a write starts from the file as it is now: what another camroll wrote since the first read survives', () => {
    const dir = mkdtempSync(join(tmpdir(), 'camroll-config-'));
    dirs.push(dir);
    const key = 'sk_test_lostupdate0123456789';
    const reader = createConfigReader({ cwd: dir });
    const store = createConfigStore({ cwd: dir, reader });
    store.setBaseUrl('a', 'https://a.example.com/v1');
    // What `config set-key` reads before it waits at its prompt.
    expect(store.getProfile('a')).toEqual({ base_url: 'https://a.example.com/v1' });
    // Meanwhile another camroll adds a profile.
    createConfigStore({ cwd: dir }).setBaseUrl('b', 'http://127.0.0.2:9/v1');
    // Plain reads keep the command's one reading.
    expect(store.getProfile('b')).toBeNull();
    store.setApiKey('a', key);
    const written = JSON.parse(readFileSync(reader.path, 'utf8')) as { profiles: Record<string, unknown> };
    expect(written.profiles).toEqual({
      a: { base_url: 'https://a.example.com/v1', api_key: key },
      b: { base_url: 'http://127.0.0.2:9/v1' },
    });
    expect(store.listProfiles().map((p) => p.name)).toEqual(['a', 'b']);
    expect(mode(reader.path)).toBe(0o600);
  });
});

describe('resolveSettings', () => {
  const store = (): ConfigStore => {
    const s = tempStore();
    s.setBaseUrl('stored', 'https://stored.example.com/v1');
    s.setApiKey('stored', 'key_stored_000000');
    s.setBaseUrl('other', 'https://other.example.com/v1');
    s.setApiKey('other', 'key_other_0000000');
    return s; // current profile: stored
  };

  it.each([
    [
      'stored profile only',
      {},
      {},
      'stored',
      'profile',
      'https://stored.example.com/v1',
      'profile',
      'key_stored_000000',
      'profile',
    ],
    [
      'env base URL and key beat the stored profile',
      {},
      { CAMROLL_BASE_URL: 'https://env.example.com/v1', CAMROLL_API_KEY: 'key_env' },
      'stored',
      'profile',
      'https://env.example.com/v1',
      'env',
      'key_env',
      'env',
    ],
    [
      'env profile beats the current profile',
      {},
      { CAMROLL_PROFILE: 'other' },
      'other',
      'env',
      'https://other.example.com/v1',
      'profile',
      'key_other_0000000',
      'profile',
    ],
    [
      'flag base URL beats env and stored',
      { baseUrl: 'https://flag.example.com/v1/' },
      { CAMROLL_BASE_URL: 'https://env.example.com/v1' },
      'stored',
      'profile',
      'https://flag.example.com/v1',
      'flag',
      'key_stored_000000',
      'profile',
    ],
    [
      'flag profile beats env profile',
      { profile: 'other' },
      { CAMROLL_PROFILE: 'stored' },
      'other',
      'flag',
      'https://other.example.com/v1',
      'profile',
      'key_other_0000000',
      'profile',
    ],
    [
      'a flag-named profile outranks env values',
      { profile: 'other' },
      { CAMROLL_BASE_URL: 'https://env.example.com/v1', CAMROLL_API_KEY: 'key_env' },
      'other',
      'flag',
      'https://other.example.com/v1',
      'profile',
      'key_other_0000000',
      'profile',
    ],
    [
      'flag base URL still beats a flag-named profile',
      { profile: 'other', baseUrl: 'https://flag.example.com/v1' },
      {},
      'other',
      'flag',
      'https://flag.example.com/v1',
      'flag',
      'key_other_0000000',
      'profile',
    ],
    [
      'a flag-named profile takes nothing from the environment, even when unknown',
      { profile: 'ghost' },
      { CAMROLL_BASE_URL: 'https://env.example.com/v1', CAMROLL_API_KEY: 'key_env' },
      'ghost',
      'flag',
      null,
      'none',
      null,
      'none',
    ],
    [
      'empty env values count as unset',
      {},
      { CAMROLL_BASE_URL: '', CAMROLL_API_KEY: ' ' },
      'stored',
      'profile',
      'https://stored.example.com/v1',
      'profile',
      'key_stored_000000',
      'profile',
    ],
  ])('%s', (_name, flags, env, profile, profileSource, url, urlSource, key, keySource) => {
    const settings = resolveSettings({ flags, env, store: store() });
    expect(settings.profile).toEqual({ value: profile, source: profileSource });
    expect(settings.baseUrl).toEqual({ value: url, source: urlSource });
    expect(settings.apiKey).toEqual({ value: key, source: keySource });
  });

  it('resolves nothing from an empty store and environment', () => {
    const settings = resolveSettings({ flags: {}, env: {}, store: tempStore() });
    expect(settings.baseUrl).toEqual({ value: null, source: 'none' });
    expect(settings.apiKey).toEqual({ value: null, source: 'none' });
    expect(settings.profile).toEqual({ value: null, source: 'none' });
  });

  it('rejects an invalid base URL from any source', () => {
    expect(() => resolveSettings({ flags: { baseUrl: 'nope' }, env: {}, store: tempStore() })).toThrow(ConfigError);
    expect(() => resolveSettings({ flags: {}, env: { CAMROLL_BASE_URL: 'ftp://x/v1' }, store: tempStore() })).toThrow(
      ConfigError,
    );
  });
});

describe('maskKey', () => {
  it.each([
    ['sk_test_0123456789abcd', '••••abcd'],
    ['short_key', '••••'],
    ['', null],
    [null, null],
  ])('%s', (key, expected) => {
    expect(maskKey(key)).toBe(expected);
  });
});

describe('readSecret', () => {
  it('takes the first line of a pipe, trimmed', async () => {
    const input = new PassThrough();
    input.end('  sk_piped_value \nsecond line\n');
    await expect(readSecret({ input, output: new PassThrough(), prompt: 'key: ' })).resolves.toEqual({
      kind: 'value',
      value: 'sk_piped_value',
    });
  });

  it('says an empty pipe gave nothing, and that it was not a terminal', async () => {
    const input = new PassThrough();
    input.end('');
    await expect(readSecret({ input, output: new PassThrough(), prompt: 'key: ' })).resolves.toEqual({
      kind: 'empty',
      interactive: false,
    });
  });

  it('prompts on a terminal without echoing the key', async () => {
    const input = Object.assign(new PassThrough(), { isTTY: true });
    const output = new PassThrough();
    let shown = '';
    output.on('data', (c: Buffer) => (shown += c.toString()));
    const pending = readSecret({ input, output, prompt: 'API key: ' });
    input.write('sk_typed_secret\n');
    await expect(pending).resolves.toEqual({ kind: 'value', value: 'sk_typed_secret' });
    expect(shown).toContain('API key: ');
    expect(shown).not.toContain('sk_typed_secret');
  });

  it('tells Ctrl-C at the prompt (a cancel) from an empty answer', async () => {
    const terminal = () => Object.assign(new PassThrough(), { isTTY: true });
    const cancelled = terminal();
    const pendingCancel = readSecret({ input: cancelled, output: new PassThrough(), prompt: 'API key: ' });
    cancelled.write('sk_half_typed\u0003');
    await expect(pendingCancel).resolves.toEqual({ kind: 'cancelled' });

    const empty = terminal();
    const pendingEmpty = readSecret({ input: empty, output: new PassThrough(), prompt: 'API key: ' });
    empty.write('   \n');
    await expect(pendingEmpty).resolves.toEqual({ kind: 'empty', interactive: true });

    const ended = terminal();
    const pendingEnd = readSecret({ input: ended, output: new PassThrough(), prompt: 'API key: ' });
    ended.end();
    await expect(pendingEnd).resolves.toEqual({ kind: 'empty', interactive: true });
  });

  it('is cancelled when the command is aborted while it waits', async () => {
    const input = Object.assign(new PassThrough(), { isTTY: true });
    const controller = new AbortController();
    const pending = readSecret({ input, output: new PassThrough(), prompt: 'API key: ', signal: controller.signal });
    controller.abort();
    await expect(pending).resolves.toEqual({ kind: 'cancelled' });
  });
});
