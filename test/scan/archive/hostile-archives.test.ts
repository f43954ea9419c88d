import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { scanLibrary } from '../../../src/scan/scan.js';
import type { ScanRecord } from '../../../src/scan/types.js';
import {
  gnuLongNameBomb,
  nestedRangeZip,
  overlapZip,
  paxBomb,
  PHOTO,
  writeTar,
  zipOf,
} from '../../helpers/hostile-corpus.js';

/** The archive walk with the tar guard and the zip checks in place, in process (the binary: test/e2e/hostile-input). */

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'camroll-hostile-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

async function records(roots: string[]): Promise<ScanRecord[]> {
  const out: ScanRecord[] = [];
  for await (const event of scanLibrary({ roots, cwd: dir, cache: false, cacheDir: join(dir, 'cache'), workers: 0 }))
    if (event.type === 'record') out.push(event.record);
  return out.sort((a, b) => a.path.localeCompare(b.path));
}

const summary = (list: ScanRecord[]) =>
  list.map((r) => ({ path: r.path, code: r.error?.code ?? null, id: r.media ? 'id' : null }));

describe('hostile archives in the walk', () => {
  it.each([
    ['.tgz', 'x.tgz'],
    ['.tar', 'x.tar'],
  ])('a %s PAX header past 64 KiB costs its member an archive_limit line; the others are read', async (_kind, name) => {
    const path = join(dir, name);
    await writeTar(path, paxBomb(256 * 1024));
    const list = await records([path]);
    expect(summary(list)).toEqual([
      { path: `${name}!/Takeout/after/IMG_1000.jpg`, code: null, id: 'id' },
      { path: `${name}!/Takeout/after/IMG_1001.jpg`, code: null, id: 'id' },
      { path: `${name}!/Takeout/before/IMG_1000.jpg`, code: null, id: 'id' },
      { path: `${name}!/Takeout/before/IMG_1001.jpg`, code: null, id: 'id' },
      { path: `${name}!/Takeout/bomb.jpg`, code: 'archive_limit', id: null },
    ]);
    expect(list.at(-1)!.error!.message).toMatch(/PAX extended header declares 262144 bytes, more than the 65536-byte/);
  });

  it('a GNU long name past 64 KiB likewise', async () => {
    const path = join(dir, 'long.tgz');
    await writeTar(path, gnuLongNameBomb(100_000));
    expect(summary(await records([path]))).toEqual([
      { path: 'long.tgz!/long/after/IMG_1000.jpg', code: null, id: 'id' },
      { path: 'long.tgz!/long/before/IMG_1000.jpg', code: null, id: 'id' },
      { path: 'long.tgz!/long/bomb.jpg', code: 'archive_limit', id: null },
    ]);
  });

  it('a zip whose entries share one member is one archive_limit line, no member read', async () => {
    const path = join(dir, 'bomb.zip');
    writeFileSync(path, overlapZip(500, 256 * 1024));
    const list = await records([path]);
    expect(summary(list)).toEqual([{ path: 'bomb.zip', code: 'archive_limit', id: null }]);
    expect(list[0]!.error!.message).toMatch(/"IMG_0000\.jpg" and "IMG_0001\.jpg" use the same bytes/);
  });

  it('a zip whose member holds another, and a zip inside a zip that does, likewise', async () => {
    writeFileSync(join(dir, 'ranges.zip'), nestedRangeZip());
    writeFileSync(
      join(dir, 'outer.zip'),
      zipOf([
        { name: 'inner.zip', data: nestedRangeZip() },
        { name: 'IMG_1.jpg', data: PHOTO },
      ]),
    );
    expect(summary(await records([join(dir, 'ranges.zip'), join(dir, 'outer.zip')]))).toEqual([
      { path: 'outer.zip!/IMG_1.jpg', code: null, id: 'id' },
      { path: 'outer.zip!/inner.zip', code: 'archive_limit', id: null },
      { path: 'ranges.zip', code: 'archive_limit', id: null },
    ]);
  });
});
