import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, runCamroll, tempHome } from './helpers/camroll.js';
import { packagesLoaded } from './helpers/module-trace.js';

// What each command loads decides how soon it answers: a re-scan of an unchanged export is
// mostly start-up. These runs of the real binary record every module it loads.
describe('start-up: what a scan loads', () => {
  const home = tempHome('camroll-start-up-');
  const library = join(ROOT, 'fixtures', 'library', 'DCIM');
  const archives = join(ROOT, 'fixtures', 'archives');

  it('a folder scan loads neither the contract schemas (zod) nor an archive reader', async () => {
    const { packages, result } = await packagesLoaded(['scan', library, '--no-cache'], home);
    expect(result.code, result.stderr).toBe(0);
    expect(packages.has('commander')).toBe(true); // the trace works
    expect([...packages]).not.toContain('zod');
    expect([...packages]).not.toContain('yauzl');
    expect([...packages]).not.toContain('tar-stream');
  });

  it('a zip scan loads the zip reader only: no tar reader, no zod', async () => {
    const { packages, result } = await packagesLoaded(['scan', join(archives, 'takeout-001.zip'), '--no-cache'], home);
    expect(result.code, result.stderr).toBe(0);
    expect(packages.has('yauzl')).toBe(true);
    expect([...packages]).not.toContain('tar-stream');
    expect([...packages]).not.toContain('zod');
  });

  it('a .tgz scan loads the tar reader', async () => {
    const { packages, result } = await packagesLoaded(['scan', join(archives, 'takeout-001.tgz'), '--no-cache'], home);
    expect(result.code, result.stderr).toBe(0);
    expect(packages.has('tar-stream')).toBe(true);
  });
});

describe('start-up: what a reading command loads', () => {
  const home = tempHome('camroll-start-up-');
  const key = 'sk_test_start_up_0001';

  it('doctor reads the stored profile without loading conf (conf is for writes), and never prints the key', async () => {
    // Port 9 (discard) on 127.0.0.1: refused at once, so the checks fail fast.
    const set = await runCamroll(['config', 'set-url', 'http://127.0.0.1:9/v1', '--profile', 'main'], home);
    expect(set.code, set.stderr).toBe(0);
    const stored = await runCamroll(['config', 'set-key', '--profile', 'main'], { ...home, stdin: `${key}\n` });
    expect(stored.code, stored.stderr).toBe(0);
    const { packages, result } = await packagesLoaded(['doctor', '--retries', '0'], home);
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/^config\.key +pass/m);
    expect(result.stdout).toContain('http://127.0.0.1:9/v1');
    expect(`${result.stdout}${result.stderr}`).not.toContain(key);
    expect(packages.has('commander')).toBe(true); // the trace works
    expect([...packages]).not.toContain('conf');
  });
});

describe('start-up: the load rules of docs/ARCHITECTURE.md', () => {
  const home = tempHome('camroll-start-up-');
  const library = join(ROOT, 'fixtures', 'library', 'DCIM');
  const remote = ['--base-url', 'http://127.0.0.1:9/v1', '--retries', '0'];
  const user = ['--user', '6f1c2a4e-8b7d-4c3e-9a1f-2b3c4d5e6f70'];
  const withKey = { ...home, env: { ...home.env, CAMROLL_API_KEY: 'sk_test_start_up_0002' } };
  const neverAtStart = [
    'fastify',
    'pg',
    'piscina',
    'chokidar',
    'luxon',
    'geo-tz',
    'fast-xml-parser',
    'yauzl',
    'csv-parse',
  ];

  it('`camroll --help` registers every command and loads none of their heavy parts', async () => {
    const { packages, result } = await packagesLoaded(['--help'], home);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('serve');
    expect(packages.has('commander')).toBe(true); // the trace works
    for (const name of neverAtStart) expect([...packages]).not.toContain(name);
  });

  it('a remote command (ping) loads no scanner and no service', async () => {
    const { packages, result } = await packagesLoaded(['ping', ...remote], home);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('ECONNREFUSED');
    expect(packages.has('commander')).toBe(true);
    for (const name of [...neverAtStart, 'picomatch']) expect([...packages]).not.toContain(name);
  });

  it('a remote sync loads the scanner but no service, and no watcher without --watch', async () => {
    const once = await packagesLoaded(['sync', library, ...user, ...remote], withKey);
    expect(once.result.code, once.result.stderr).not.toBe(0);
    expect(once.result.stderr).toContain('ECONNREFUSED');
    expect(once.packages.has('picomatch')).toBe(true); // the scan ran
    for (const name of ['fastify', 'pg', 'chokidar']) expect([...once.packages]).not.toContain(name);
    // The same run with --watch loads the watcher: the rule is the flag, not the failure.
    const watching = await packagesLoaded(['sync', library, ...user, ...remote, '--watch'], withKey);
    expect(watching.packages.has('chokidar')).toBe(true);
  });
});
