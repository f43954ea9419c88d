import { chmodSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli, useTempHome } from '../helpers/run-cli.js';

// The fixture library holds unreadable files and items the service would reject, so every
// report below has lines to write.
const LIBRARY = join(import.meta.dirname, '..', '..', '..', 'fixtures', 'library');
let home: ReturnType<typeof useTempHome>;
beforeEach(() => {
  home = useTempHome();
});
afterEach(() => home.cleanup());

describe('--report FILE', () => {
  // scan exits 1 on this library: some of its files cannot be read (reported, not lost).
  it.each([
    ['scan', ['scan', LIBRARY, '--no-cache'], 1],
    ['sync --dry-run', ['sync', LIBRARY, '--dry-run'], 0],
  ])('%s: an existing file is overwritten with mode 0600, and that is said', async (_name, args, code) => {
    const file = join(home.home, 'report.jsonl');
    writeFileSync(file, 'old contents\n');
    chmodSync(file, 0o644);
    const result = await runCli([...args, '--report', file]);
    expect(result.code).toBe(code);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(result.stderr).toContain(`camroll: overwriting ${file}\n`);
    const lines = readFileSync(file, 'utf8').trim().split('\n');
    expect(lines.length).toBeGreaterThan(0);
    expect(lines[0]).not.toBe('old contents');
    for (const line of lines) expect(() => JSON.parse(line)).not.toThrow();
  });

  it('a new file says nothing about overwriting, and is mode 0600', async () => {
    const file = join(home.home, 'new-report.jsonl');
    const result = await runCli(['scan', LIBRARY, '--no-cache', '--report', file]);
    expect(result.code).toBe(1);
    expect(result.stderr).not.toContain('overwriting');
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });

  it.each([
    ['scan', ['scan', LIBRARY, '--no-cache', '--report', '/dev/full']],
    ['sync --dry-run', ['sync', LIBRARY, '--dry-run', '--report', '/dev/full']],
    [
      'sync (embedded service)',
      ['sync', LIBRARY, '--email', 'full@example.com', '--no-cache', '--report', '/dev/full'],
    ],
  ])('%s into a full disk (/dev/full): a clear error and exit 1, never a crash', async (_name, args) => {
    const result = await runCli(args);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      'camroll: cannot write the report file /dev/full: no space left on the device (ENOSPC) [report_write_failed]',
    );
    // /dev/full is a device: its permissions are left alone.
    expect(statSync('/dev/full').mode & 0o777).not.toBe(0o600);
  });

  it('a folder that does not exist is a usage error before anything is scanned', async () => {
    const result = await runCli(['scan', LIBRARY, '--report', join(home.home, 'missing', 'r.jsonl')]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('cannot write the report file');
    expect(result.stderr).toContain('no longer exists (ENOENT)');
  });
});
