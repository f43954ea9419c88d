import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli, useTempHome } from '../helpers/run-cli.js';

const KEY = 'sk_test_config_cmd_5678';
const ENV_KEY = 'sk_env_should_not_be_stored_9999';
let home: ReturnType<typeof useTempHome>;
beforeEach(() => {
  home = useTempHome();
});
afterEach(() => home.cleanup());

const configFile = (): string => join(home.home, 'config', 'camroll', 'config.json');
const stored = (): {
  current_profile?: string | null;
  profiles?: Record<string, { base_url?: string; api_key?: string }>;
} => {
  try {
    return JSON.parse(readFileSync(configFile(), 'utf8'));
  } catch {
    return {};
  }
};
const terminal = (): PassThrough & { isTTY: boolean } => Object.assign(new PassThrough(), { isTTY: true });

describe('config set-key', () => {
  beforeEach(async () => {
    for (const name of ['sandbox', 'ci'])
      await runCli(['config', 'set-url', `https://${name}.example.com/v1`, '--profile', name]);
  });

  it('stores a piped key, in a file of mode 0600, and never prints it', async () => {
    const result = await runCli(['config', 'set-key', '--profile', 'sandbox'], { stdin: `${KEY}\n` });
    expect(result.code).toBe(0);
    expect(stored().profiles?.sandbox?.api_key).toBe(KEY);
    expect(statSync(configFile()).mode & 0o777).toBe(0o600);
    expect(result.stdout + result.stderr).not.toContain(KEY);
    expect(result.stdout).toContain('••••5678');
  });

  it('Ctrl-C at the hidden prompt stores nothing and exits 130, even with a key in the environment', async () => {
    const stdin = terminal();
    const pending = runCli(['config', 'set-key', '--profile', 'sandbox'], { stdin, env: { CAMROLL_API_KEY: ENV_KEY } });
    stdin.write('sk_half\u0003');
    const result = await pending;
    expect(result.code).toBe(130);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain('cancelled; no key was stored');
    expect(stored().profiles?.sandbox?.api_key).toBeUndefined();
    expect(result.stdout + result.stderr).not.toContain(ENV_KEY);
  });

  it('an empty answer at the prompt stores nothing: the environment is not a fallback for a terminal', async () => {
    const stdin = terminal();
    const pending = runCli(['config', 'set-key', '--profile', 'sandbox'], { stdin, env: { CAMROLL_API_KEY: ENV_KEY } });
    stdin.write('\n');
    const result = await pending;
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('no key typed; nothing was stored');
    expect(stored().profiles?.sandbox?.api_key).toBeUndefined();
  });

  it('takes CAMROLL_API_KEY for an empty pipe, and says so', async () => {
    const result = await runCli(['config', 'set-key', '--profile', 'ci'], {
      stdin: '',
      env: { CAMROLL_API_KEY: ENV_KEY },
    });
    expect(result.code).toBe(0);
    expect(result.stderr).toContain('standard input was empty; storing the key from CAMROLL_API_KEY');
    expect(stored().profiles?.ci?.api_key).toBe(ENV_KEY);
    expect(result.stdout + result.stderr).not.toContain(ENV_KEY);
  });

  it('a profile that does not exist is refused before the key is read, naming set-url with the same --profile', async () => {
    const stdin = terminal();
    const result = await runCli(['config', 'set-key', '--profile', 'sandbx'], {
      stdin,
      env: { CAMROLL_API_KEY: ENV_KEY },
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      'no profile named "sandbx"; create it first with `camroll config set-url <url> --profile sandbx`',
    );
    expect(result.stderr).not.toContain('API key for profile');
    expect(stored().profiles?.sandbx).toBeUndefined();
    const fromEnv = await runCli(['config', 'set-key'], { stdin: `${KEY}\n`, env: { CAMROLL_PROFILE: 'nope' } });
    expect(fromEnv.code).toBe(2);
    expect(fromEnv.stderr).toContain('camroll config set-url <url> --profile nope');
  });

  it('with no profile at all, says to create one first', async () => {
    home.cleanup();
    home = useTempHome();
    const result = await runCli(['config', 'set-key'], { stdin: `${KEY}\n` });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      'no profile to store the key in; create one first with `camroll config set-url <url> [--profile NAME]`',
    );
    expect(stored()).toEqual({});
  });

  it('a profile an older camroll stored without a URL takes a key but does not become current', async () => {
    mkdirSync(join(home.home, 'config', 'camroll'), { recursive: true });
    writeFileSync(configFile(), JSON.stringify({ current_profile: null, profiles: { old: {} }, users: {} }));
    expect((await runCli(['config', 'set-key', '--profile', 'old'], { stdin: `${KEY}\n` })).code).toBe(0);
    expect(stored().current_profile ?? null).toBeNull();
    const use = await runCli(['config', 'use', 'old']);
    expect(use.code).toBe(2);
    expect(use.stderr).toContain('camroll config set-url <url> --profile old');
    expect((await runCli(['config', 'set-url', 'https://old.example.com/v1', '--profile', 'old'])).code).toBe(0);
    expect(stored().current_profile).toBe('old');
  });
});

describe('config set-url', () => {
  it.each([
    ['https://api.example.com', 'https://api.example.com/v1'],
    ['https://api.example.com/partner/', 'https://api.example.com/partner/v1'],
  ])(
    '%s has no version path: stored as given, with a warning that names the versioned URL',
    async (url, suggestion) => {
      const result = await runCli(['config', 'set-url', url, '--profile', 'prod']);
      expect(result.code).toBe(0);
      expect(result.stdout).toBe(`profile prod: base URL set to ${url.replace(/\/+$/, '')}\n`);
      expect(result.stderr).toBe(
        `camroll: warning: the base URL has no version path: did you mean ${suggestion}? (set it with \`camroll ` +
          `config set-url ${suggestion} --profile prod\`)\n`,
      );
      expect(stored().profiles?.prod?.base_url).toBe(url.replace(/\/+$/, ''));
    },
  );

  it.each(['https://api.example.com/v1', 'http://127.0.0.1:8787/v1', 'https://api.example.com/api/v2beta/'])(
    '%s: no warning',
    async (url) => {
      const result = await runCli(['config', 'set-url', url]);
      expect(result.code).toBe(0);
      expect(result.stderr).toBe('');
    },
  );
});

describe('a named profile is paired with its own key only', () => {
  it('`--profile` with a URL and no stored key refuses the environment key and names set-key', async () => {
    await runCli(['config', 'set-url', 'http://127.0.0.1:9/v1', '--profile', 'prod']);
    const result = await runCli(['stats', '--user', '00000000-0000-4000-8000-000000000000', '--profile', 'prod'], {
      env: { CAMROLL_API_KEY: ENV_KEY },
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('profile "prod" holds no API key');
    expect(result.stderr).toContain('camroll config set-key --profile prod');
    expect(result.stderr).toContain('[missing_api_key]');
    expect(result.stderr).not.toContain(ENV_KEY);
  });
});
