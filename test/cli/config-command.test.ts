import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli, useTempHome } from './helpers/run-cli.js';

const KEY = 'sk_test_config_cmd_5678';
const ENV_KEY = 'sk_env_should_not_be_stored_9999';
let home: ReturnType<typeof useTempHome>;
beforeEach(() => {
  home = useTempHome();
});
afterEach(() => home.cleanup());

const configFile = (): string => join(home.home, 'config', 'camroll', 'config.json');
const stored = (): { current_profile?: string | null; profiles?: Record<string, { base_url?: string; api_key?: string }> } => {
  try {
    return JSON.parse(readFileSync(configFile(), 'utf8'));
  } catch {
    return {};
  }
};
const terminal = (): PassThrough & { isTTY: boolean } => Object.assign(new PassThrough(), { isTTY: true });

describe('config set-key', () => {
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
    expect(stored().profiles?.sandbox).toBeUndefined();
    expect(result.stdout + result.stderr).not.toContain(ENV_KEY);
  });

  it('an empty answer at the prompt stores nothing: the environment is not a fallback for a terminal', async () => {
    const stdin = terminal();
    const pending = runCli(['config', 'set-key', '--profile', 'sandbox'], { stdin, env: { CAMROLL_API_KEY: ENV_KEY } });
    stdin.write('\n');
    const result = await pending;
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('no key typed; nothing was stored');
    expect(stored().profiles?.sandbox).toBeUndefined();
  });

  it('takes CAMROLL_API_KEY for an empty pipe, and says so', async () => {
    const result = await runCli(['config', 'set-key', '--profile', 'ci'], { stdin: '', env: { CAMROLL_API_KEY: ENV_KEY } });
    expect(result.code).toBe(0);
    expect(result.stderr).toContain('standard input was empty; storing the key from CAMROLL_API_KEY');
    expect(stored().profiles?.ci?.api_key).toBe(ENV_KEY);
    expect(result.stdout + result.stderr).not.toContain(ENV_KEY);
  });

  it('a key stored in a profile with no URL does not make it current', async () => {
    expect((await runCli(['config', 'set-key', '--profile', 'sandbox'], { stdin: `${KEY}\n` })).code).toBe(0);
    expect(stored().current_profile ?? null).toBeNull();
    const use = await runCli(['config', 'use', 'sandbox']);
    expect(use.code).toBe(2);
    expect(use.stderr).toContain('camroll config set-url <url> --profile sandbox');
    expect((await runCli(['config', 'set-url', 'https://sandbox.example.com/v1', '--profile', 'sandbox'])).code).toBe(0);
    expect(stored().current_profile).toBe('sandbox');
  });
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
