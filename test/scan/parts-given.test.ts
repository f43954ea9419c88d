import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { partGapsOf, partGapWarnings } from '../../src/scan/roots.js';

describe('partGapsOf', () => {
  const dir = mkdtempSync(join(tmpdir(), 'camroll-parts-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const file = (name: string): string => {
    writeFileSync(join(dir, name), '');
    return join(dir, name);
  };

  it('reads the parts named as roots', async () => {
    const roots = [file('takeout-20250101T000000Z-001.zip'), file('takeout-20250101T000000Z-003.tgz')];
    const gaps = await partGapsOf(roots, { archives: false });
    expect(gaps.map((gap) => gap.missing)).toEqual([[2]]);
    expect(partGapWarnings(gaps)).toEqual([
      {
        type: 'warning',
        code: 'missing_parts',
        path: 'takeout-20250101T000000Z',
        message: 'part 002 missing',
      },
    ]);
  });

  it('reads the parts lying in a folder given: its folders always, its archives with --archives', async () => {
    const root = join(dir, 'export');
    mkdirSync(join(root, 'iCloud Photos Part 1 of 3'), { recursive: true });
    writeFileSync(join(root, 'iCloud Photos Part 3 of 3.zip'), '');
    expect((await partGapsOf([root], { archives: false }))[0]?.missing).toEqual([2, 3]);
    expect((await partGapsOf([root], { archives: true }))[0]?.missing).toEqual([2]);
    // An unzipped part given itself.
    expect((await partGapsOf([join(root, 'iCloud Photos Part 1 of 3')], { archives: false }))[0]?.missing).toEqual([
      2, 3,
    ]);
  });
});
