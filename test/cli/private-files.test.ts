import { mkdirSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli, useTempHome } from './helpers/run-cli.js';

const LIBRARY = join(import.meta.dirname, '..', '..', 'fixtures', 'library');
let home: ReturnType<typeof useTempHome>;
beforeEach(() => {
  home = useTempHome();
});
afterEach(() => home.cleanup());

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name));
}

describe('files camroll writes that hold user data', () => {
  it('are all mode 0600 after a sync: user directory, service database, local key, journal, scan cache', async () => {
    const result = await runCli(['sync', LIBRARY, '--email', 'private-files@example.com']);
    expect(result.code).toBe(0);
    const written = filesUnder(home.home);
    // the user directory, the service database and key, a journal, the scan cache
    expect(written.some((f) => f.endsWith('users.sqlite3'))).toBe(true);
    expect(written.some((f) => f.endsWith('service.db'))).toBe(true);
    expect(written.some((f) => f.includes(`${join('journals', '')}`))).toBe(true);
    expect(written.some((f) => f.includes('scan-cache'))).toBe(true);
    for (const file of written)
      expect({ file, mode: (statSync(file).mode & 0o777).toString(8) }).toEqual({ file, mode: '600' });
  });

  it('keep them in folders of mode 0700: the config folder (the key), the data and cache folders', async () => {
    const mode = (path: string): string => (statSync(path).mode & 0o777).toString(8);
    // The sync (embedded service) makes the data and cache folders; set-url the config folder.
    const synced = await runCli(['sync', LIBRARY, '--email', 'private-folders@example.com', '-q']);
    expect(synced.code, synced.stderr).toBe(0);
    const set = await runCli(['config', 'set-url', 'https://api.example.com/v1']);
    expect(set.code, set.stderr).toBe(0);
    expect(mode(join(home.paths.config, 'config.json'))).toBe('600');
    for (const folder of [home.paths.config, home.paths.data, home.paths.cache])
      expect({ folder, mode: mode(folder) }).toEqual({ folder, mode: '700' });
  });

  it('narrow a config folder that an older camroll left 0755 at the next write', async () => {
    mkdirSync(home.paths.config, { recursive: true, mode: 0o755 });
    expect((statSync(home.paths.config).mode & 0o077) !== 0).toBe(true);
    const set = await runCli(['config', 'set-url', 'https://api.example.com/v1']);
    expect(set.code, set.stderr).toBe(0);
    expect((statSync(home.paths.config).mode & 0o777).toString(8)).toBe('700');
  });
});
