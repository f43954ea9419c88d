import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AppPaths } from '../../src/paths.js';
import { runCli, useTempHome } from './helpers/run-cli.js';

const FIXTURE = join(import.meta.dirname, '..', '..', 'fixtures', 'library', 'events', 'cape-town');

let home: ReturnType<typeof useTempHome>;
let own: string;
let paths: AppPaths;
beforeEach(() => {
  home = useTempHome();
  own = mkdtempSync(join(tmpdir(), 'camroll-paths-'));
  paths = { data: join(own, 'data'), cache: join(own, 'cache'), config: join(own, 'config') };
});
afterEach(() => {
  home.cleanup();
  rmSync(own, { recursive: true, force: true });
});

describe('state paths come from the context (ctx.paths), resolved once by main', () => {
  it('the configuration, the scan cache and the user directory go where ctx.paths says, whatever XDG_* say', async () => {
    expect((await runCli(['config', 'path'], { paths })).stdout).toBe(`${join(paths.config, 'config.json')}\n`);
    expect((await runCli(['config', 'set-url', 'https://api.example.com/v1'], { paths })).code).toBe(0);
    expect(existsSync(join(paths.config, 'config.json'))).toBe(true);
    const scanned = await runCli(['scan', FIXTURE, '--json', '--workers', '1'], { paths });
    expect(scanned.code, scanned.stderr).toBe(0);
    expect(existsSync(join(paths.cache, 'scan-cache.sqlite3'))).toBe(true);
    // `users list` only reads (and creates nothing); an import writes the directory.
    const entries = join(own, 'users.csv');
    writeFileSync(entries, 'ana@example.com,3f1c2a8e-4b5d-4c6e-8f90-123456789abc\n');
    const imported = await runCli(['users', 'import', entries], { paths });
    expect(imported.code, imported.stderr).toBe(0);
    expect(existsSync(join(paths.data, 'users.sqlite3'))).toBe(true);
    const listed = await runCli(['users', 'list', '--json'], { paths });
    expect(JSON.parse(listed.stdout)).toMatchObject([{ email: 'ana@example.com' }]);
    // Nothing was written under the temp home (runCli's default folders).
    expect(readdirSync(home.home)).toEqual([]);
  });

  it("tests use the temp home's folders as given: the process's XDG_* (macOS ignores them) play no part", async () => {
    const saved = process.env.XDG_CONFIG_HOME;
    process.env.XDG_CONFIG_HOME = join(own, 'elsewhere');
    try {
      expect((await runCli(['config', 'path'])).stdout).toBe(`${join(home.paths.config, 'config.json')}\n`);
    } finally {
      if (saved === undefined) delete process.env.XDG_CONFIG_HOME;
      else process.env.XDG_CONFIG_HOME = saved;
    }
    // Without a temp home, a test cannot run the CLI at all: never against the real home.
    home.cleanup();
    await expect(runCli(['config', 'path'])).rejects.toThrow(/useTempHome/);
  });

  it('nothing below main reads the process environment or resolves the folders itself', () => {
    const root = join(import.meta.dirname, '..', '..', 'src');
    const offenders: string[] = [];
    for (const file of readdirSync(root, { recursive: true, encoding: 'utf8' }).filter((name) =>
      /\.c?ts$/.test(name),
    )) {
      if (file === join('cli', 'main.ts') || file === 'paths.ts') continue;
      const text = readFileSync(join(root, file), 'utf8');
      if (/process\.env\b|\bappPaths\(|from 'env-paths'/.test(text)) offenders.push(file);
    }
    expect(offenders).toEqual([]);
  });
});
