import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, tempHome } from './helpers/camroll.js';
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
