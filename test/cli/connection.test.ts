import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { openConnection, targetIdentity } from '../../src/cli/connection.js';
import type { CliContext } from '../../src/cli/context.js';
import { createConfigReader, createConfigStore, type ConfigStore } from '../../src/config/index.js';
import { ConfigError, UsageError } from '../../src/errors.js';
import { startTestServer } from '../client/test-server.js';

const dirs: string[] = [];
afterEach(() => {
  while (dirs.length > 0) rmSync(dirs.pop() as string, { recursive: true, force: true });
});

function setup(env: NodeJS.ProcessEnv = {}): { ctx: CliContext; store: ConfigStore; stderr: () => string } {
  const dir = mkdtempSync(join(tmpdir(), 'camroll-conn-'));
  dirs.push(dir);
  const stderr = new PassThrough();
  let text = '';
  stderr.on('data', (c: Buffer) => (text += c.toString()));
  const ctx: CliContext = {
    stdin: new PassThrough(),
    stdout: new PassThrough(),
    stderr,
    env,
    paths: { data: join(dir, 'data'), cache: join(dir, 'cache'), config: dir },
    cwd: dir,
    signal: new AbortController().signal,
    stderrIsTTY: false,
    exitCode: 0,
  };
  return { ctx, store: createConfigStore({ cwd: dir }), stderr: () => text };
}

describe('openConnection', () => {
  it('opens a remote client from the stored profile, with the URL as identity', async () => {
    const server = await startTestServer((req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          status: 'ok',
          partner_id: 'acme',
          environment: 'production',
          rate_limit: null,
          key: req.headers['x-partner-api-key'],
        }),
      );
    });
    try {
      const { ctx, store } = setup();
      store.setBaseUrl('prod', `${server.origin}/v1/`);
      store.setApiKey('prod', 'sk_live_stored_key_1234');
      const connection = await openConnection({ ctx, flags: {}, store });
      try {
        expect(connection.target).toEqual({
          kind: 'remote',
          baseUrl: `${server.origin}/v1`,
          profile: 'prod',
          identity: `${server.origin}/v1`,
        });
        // The stored key was sent; echoed back, it is scrubbed from the answer (src/client/scrub.ts).
        await expect(connection.client.health()).resolves.toMatchObject({ partner_id: 'acme', key: '[redacted]' });
        expect(server.seen[0]?.url).toBe('/v1/health');
        expect(server.seen[0]?.headers['x-partner-api-key']).toBe('sk_live_stored_key_1234');
      } finally {
        await connection.close();
      }
    } finally {
      await server.close();
    }
  });

  it('refuses a base URL without a key, saying how to set one', async () => {
    const { ctx, store } = setup({ CAMROLL_BASE_URL: 'https://api.example.com/v1' });
    const error = await openConnection({ ctx, flags: {}, store }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).code).toBe('missing_api_key');
    expect((error as Error).message).toContain('camroll config set-key');
  });

  it('lets ping go without a key', async () => {
    const { ctx, store } = setup({ CAMROLL_BASE_URL: 'https://api.example.com/v1' });
    const connection = await openConnection({ ctx, flags: {}, store, requireKey: false });
    expect(connection.target.kind).toBe('remote');
    await connection.close();
  });

  it('treats bad flags as usage errors and bad environment values as config errors', async () => {
    const { ctx, store } = setup({ CAMROLL_BASE_URL: 'nope' });
    await expect(openConnection({ ctx, flags: { baseUrl: 'nope' }, store })).rejects.toBeInstanceOf(UsageError);
    await expect(openConnection({ ctx, flags: { profile: 'bad name' }, store })).rejects.toBeInstanceOf(UsageError);
    await expect(openConnection({ ctx, flags: {}, store })).rejects.toBeInstanceOf(ConfigError);
  });

  it('refuses a named profile that does not exist rather than falling back to the embedded service', async () => {
    const { ctx, store } = setup();
    // Named by the flag it is a bad flag value (exit 2); named by the environment, a config error.
    await expect(openConnection({ ctx, flags: { profile: 'ghost' }, store })).rejects.toBeInstanceOf(UsageError);
    const withUrl = setup({ CAMROLL_BASE_URL: 'http://127.0.0.1:9/v1' });
    await expect(
      openConnection({ ctx: withUrl.ctx, flags: { profile: 'ghost' }, store: withUrl.store }),
    ).rejects.toBeInstanceOf(UsageError);
    const fromEnv = setup({ CAMROLL_PROFILE: 'ghost' });
    await expect(openConnection({ ctx: fromEnv.ctx, flags: {}, store: fromEnv.store })).rejects.toMatchObject({
      code: 'unknown_profile',
    });
  });

  it('names a hand-edited base URL with a trailing slash the same way without and with a connection', async () => {
    const { ctx } = setup();
    // An older or hand-edited config.json: `config set` strips the slash, a text editor does not.
    writeFileSync(
      join(ctx.paths.config, 'config.json'),
      JSON.stringify({
        current_profile: 'prod',
        profiles: { prod: { base_url: 'https://api.example.com/v1//', api_key: 'sk_live_stored_key_1234' } },
      }),
    );
    const store = createConfigReader({ cwd: ctx.paths.config });
    const identity = targetIdentity(ctx, {}, store);
    const connection = await openConnection({ ctx, flags: {}, store });
    try {
      expect(identity).toBe('https://api.example.com/v1');
      expect(connection.target.identity).toBe(identity);
    } finally {
      await connection.close();
    }
  });

  it('names the embedded service by its database file, not its port', () => {
    const { ctx, store } = setup();
    expect(targetIdentity(ctx, {}, store)).toBe(`embedded:${join(ctx.paths.data, 'service.db')}`);
  });
});
