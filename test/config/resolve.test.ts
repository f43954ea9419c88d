import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  createConfigStore,
  decideTarget,
  resolveSettings,
  type ConfigStore,
  type SettingsFlags,
} from '../../src/config/index.js';
import { ConfigError, UsageError } from '../../src/errors.js';

/**
 * The whole precedence, cell by cell: flags (--base-url, --profile), the environment
 * (CAMROLL_BASE_URL, CAMROLL_API_KEY, CAMROLL_PROFILE), the stored current profile, and the
 * embedded default, for the URL and the key together.
 */
const dirs: string[] = [];
afterEach(() => {
  while (dirs.length > 0) rmSync(dirs.pop() as string, { recursive: true, force: true });
});

const URL_CURRENT = 'https://current.example.com/v1';
const URL_NAMED = 'https://named.example.com/v1';
const URL_ONLY = 'https://url-only.example.com/v1';
const URL_ENV = 'https://env.example.com/v1';
const URL_FLAG = 'https://flag.example.com/v1';
const KEY_CURRENT = 'sk_current_000001';
const KEY_NAMED = 'sk_named_0000002';
const KEY_ONLY = 'sk_key_only_00003';
const KEY_ENV = 'sk_env_000000004';

type Stored = 'empty' | 'profiles' | 'legacy';

/** `profiles`: current (URL + key, current), named (URL + key), url-only, key-only. */
function storeWith(kind: Stored): ConfigStore {
  const dir = mkdtempSync(join(tmpdir(), 'camroll-precedence-'));
  dirs.push(dir);
  const store = createConfigStore({ cwd: dir });
  if (kind === 'profiles') {
    store.setBaseUrl('current', URL_CURRENT);
    store.setApiKey('current', KEY_CURRENT);
    store.setBaseUrl('named', URL_NAMED);
    store.setApiKey('named', KEY_NAMED);
    store.setBaseUrl('url-only', URL_ONLY);
    store.setApiKey('key-only', KEY_ONLY);
  }
  if (kind === 'legacy') {
    // An older camroll made a key-only profile current; today's store refuses to.
    writeFileSync(
      join(dir, 'config.json'),
      JSON.stringify({ current_profile: 'key-only', profiles: { 'key-only': { api_key: KEY_ONLY } }, users: {} }),
    );
  }
  return store;
}

type Outcome = { remote: string; key: string | null } | { embedded: string | null } | { error: string; says?: string };

function outcome(stored: Stored, flags: SettingsFlags, env: NodeJS.ProcessEnv, requireKey = true): Outcome {
  try {
    const decision = decideTarget(resolveSettings({ flags, env, store: storeWith(stored) }), { requireKey });
    return decision.kind === 'remote' ? { remote: decision.baseUrl, key: decision.apiKey } : { embedded: decision.why };
  } catch (error) {
    if (error instanceof UsageError) return { error: 'usage_error', says: error.message };
    if (error instanceof ConfigError) return { error: error.code, says: error.message };
    throw error;
  }
}

const envAll = { CAMROLL_BASE_URL: URL_ENV, CAMROLL_API_KEY: KEY_ENV };

describe('where requests go, and with which key', () => {
  it.each<[string, Stored, SettingsFlags, NodeJS.ProcessEnv, Outcome]>([
    // nothing anywhere: the embedded service, with nothing to explain
    ['nothing configured', 'empty', {}, {}, { embedded: null }],
    // the stored current profile
    ['stored current profile', 'profiles', {}, {}, { remote: URL_CURRENT, key: KEY_CURRENT }],
    // the environment outranks the stored profile, value by value
    ['environment URL and key', 'profiles', {}, envAll, { remote: URL_ENV, key: KEY_ENV }],
    [
      'environment key, stored URL',
      'profiles',
      {},
      { CAMROLL_API_KEY: KEY_ENV },
      { remote: URL_CURRENT, key: KEY_ENV },
    ],
    [
      'environment URL, stored key',
      'profiles',
      {},
      { CAMROLL_BASE_URL: URL_ENV },
      { remote: URL_ENV, key: KEY_CURRENT },
    ],
    ['environment only', 'empty', {}, envAll, { remote: URL_ENV, key: KEY_ENV }],
    [
      'environment URL with no key anywhere',
      'empty',
      {},
      { CAMROLL_BASE_URL: URL_ENV },
      { error: 'missing_api_key', says: 'or set CAMROLL_API_KEY' },
    ],
    // --base-url outranks everything for the URL
    [
      '--base-url with an environment key',
      'empty',
      { baseUrl: URL_FLAG },
      { CAMROLL_API_KEY: KEY_ENV },
      { remote: URL_FLAG, key: KEY_ENV },
    ],
    [
      '--base-url over environment and profile',
      'profiles',
      { baseUrl: URL_FLAG },
      envAll,
      { remote: URL_FLAG, key: KEY_ENV },
    ],
    // --profile: the named profile's URL and key go together, never with the environment's
    ['--profile over the environment', 'profiles', { profile: 'named' }, envAll, { remote: URL_NAMED, key: KEY_NAMED }],
    [
      '--profile whose profile holds no key ignores the environment key',
      'profiles',
      { profile: 'url-only' },
      { CAMROLL_API_KEY: KEY_ENV },
      { error: 'missing_api_key', says: 'camroll config set-key --profile url-only' },
    ],
    [
      '--profile whose profile has no URL ignores the environment URL',
      'profiles',
      { profile: 'key-only' },
      { CAMROLL_BASE_URL: URL_ENV },
      { error: 'profile_without_url', says: 'camroll config set-url <url> --profile key-only' },
    ],
    [
      '--profile with --base-url uses the profile key',
      'profiles',
      { profile: 'key-only', baseUrl: URL_FLAG },
      {},
      { remote: URL_FLAG, key: KEY_ONLY },
    ],
    [
      '--profile that does not exist',
      'profiles',
      { profile: 'ghost' },
      envAll,
      { error: 'usage_error', says: 'no profile named "ghost"' },
    ],
    // CAMROLL_PROFILE picks the profile; environment values still outrank its stored ones
    ['CAMROLL_PROFILE', 'profiles', {}, { CAMROLL_PROFILE: 'named' }, { remote: URL_NAMED, key: KEY_NAMED }],
    [
      'CAMROLL_PROFILE with an environment key',
      'profiles',
      {},
      { CAMROLL_PROFILE: 'named', CAMROLL_API_KEY: KEY_ENV },
      { remote: URL_NAMED, key: KEY_ENV },
    ],
    [
      'CAMROLL_PROFILE without a URL',
      'profiles',
      {},
      { CAMROLL_PROFILE: 'key-only' },
      { error: 'profile_without_url' },
    ],
    ['CAMROLL_PROFILE that does not exist', 'profiles', {}, { CAMROLL_PROFILE: 'ghost' }, { error: 'unknown_profile' }],
    [
      '--profile outranks CAMROLL_PROFILE',
      'profiles',
      { profile: 'named' },
      { CAMROLL_PROFILE: 'current' },
      { remote: URL_NAMED, key: KEY_NAMED },
    ],
    // a current profile with no URL is never silently the embedded service: the reason is given
    [
      'current profile with no URL',
      'legacy',
      {},
      {},
      {
        embedded:
          'the current profile "key-only" has no base URL (set one with `camroll config set-url <url> --profile ' +
          'key-only`)',
      },
    ],
    [
      'current profile with no URL, environment URL',
      'legacy',
      {},
      { CAMROLL_BASE_URL: URL_ENV },
      { remote: URL_ENV, key: KEY_ONLY },
    ],
  ])('%s', (_name, stored, flags, env, expected) => {
    const actual = outcome(stored, flags, env);
    if ('error' in expected && expected.says === undefined) expect(actual).toMatchObject({ error: expected.error });
    else if ('error' in expected) {
      expect(actual).toMatchObject({ error: expected.error });
      expect((actual as { says: string }).says).toContain(expected.says);
    } else expect(actual).toEqual(expected);
  });

  it('lets a call that needs no key (ping) go to a URL without one', () => {
    expect(outcome('empty', {}, { CAMROLL_BASE_URL: URL_ENV }, false)).toEqual({ remote: URL_ENV, key: null });
    expect(outcome('profiles', { profile: 'url-only' }, { CAMROLL_API_KEY: KEY_ENV }, false)).toEqual({
      remote: URL_ONLY,
      key: null,
    });
  });

  it('never names a key in an error', () => {
    for (const flags of [{ profile: 'url-only' }, { profile: 'key-only' }, { profile: 'ghost' }]) {
      const result = outcome('profiles', flags, envAll);
      expect(JSON.stringify(result)).not.toMatch(/sk_[a-z_]+\d+/);
    }
  });
});

describe('profiles without a URL', () => {
  it('storing only a key never makes a profile current', () => {
    const store = storeWith('empty');
    store.setApiKey('sandbox', KEY_ONLY);
    expect(store.currentProfile()).toBeNull();
    store.setBaseUrl('sandbox', URL_ENV);
    expect(store.currentProfile()).toBe('sandbox');
  });

  it('`use` refuses a profile without a URL, saying how to give it one', () => {
    const store = storeWith('profiles');
    expect(() => store.useProfile('key-only')).toThrow(/no base URL.*camroll config set-url <url> --profile key-only/);
    expect(store.currentProfile()).toBe('current');
  });
});
