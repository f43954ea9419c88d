import * as fs from 'node:fs';
import type { Dirent, Stats } from 'node:fs';
import { execFileSync } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { walk, type WalkEvent, type WalkFile, type WalkFs } from '../../src/scan/sources/folder.js';
import { countMediaFiles } from '../../src/scan/progress.js';
import { createExcludeMatcher, fileSkipReason, folderSkipReason } from '../../src/scan/classify.js';

let dir: string;

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'camroll-walk-'));
});
afterEach(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});

function put(relative: string, content = 'x'): void {
  const file = path.join(dir, relative);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, content);
}

async function collect(options: Partial<Parameters<typeof walk>[0]> = {}): Promise<WalkEvent[]> {
  const events: WalkEvent[] = [];
  for await (const event of walk({ roots: [dir], ...options })) events.push(event);
  return events;
}

const files = (events: WalkEvent[]): string[] =>
  events
    .filter((e): e is WalkFile => e.type === 'file')
    .map((e) => e.path)
    .sort();
const skipped = (events: WalkEvent[]): string[] =>
  events
    .filter((e) => e.type === 'skipped')
    .map((e) => `${(e as { reason: string }).reason} ${path.relative(dir, (e as { absPath: string }).absPath)}`)
    .sort();

describe('junk names', () => {
  it.each([
    ['._IMG_1.jpg', 'appledouble'],
    ['.DS_Store', 'system_file'],
    ['.trashed-1712345678-IMG_2.jpg', 'trashed'],
    ['SYNOFILE_THUMB_XL.jpg', 'nas_thumbnail'],
    ['IMG_1.jpg', null],
    ['.hidden.jpg', null],
  ])('file %s -> %s', (name, reason) => {
    expect(fileSkipReason(name)).toBe(reason);
  });

  it.each([
    ['.Spotlight-V100', 'system_folder'],
    ['.Trashes', 'system_folder'],
    ['.thumbnails', 'thumbnail_folder'],
    ['@eaDir', 'nas_thumbnail'],
    ['@__thumb', 'nas_thumbnail'],
    ['Recently Deleted', 'trashed'],
    ['.git', 'hidden_folder'],
    ['2024', null],
  ])('folder %s -> %s', (name, reason) => {
    expect(folderSkipReason(name)).toBe(reason);
  });
});

describe('walk', () => {
  it('finds media recursively with case-insensitive extensions and counts every skip once', async () => {
    put('a.jpg');
    put('b.HEIC');
    put('deep/er/c.Mp4');
    put('deep/d.dng');
    put('notes.txt');
    put('a.jpg.json', '{}');
    put('a.xmp', '<x/>');
    put('._a.jpg');
    put('.DS_Store');
    put('.trashed-99-e.jpg');
    put('SYNOFILE_THUMB_M.jpg');
    put('@eaDir/a.jpg/SYNOFILE_THUMB_XL.jpg');
    put('@__thumb/x.jpg');
    put('.thumbnails/t.jpg');
    put('.Spotlight-V100/s.jpg');
    put('.Trashes/501/t.jpg');
    put('Recently Deleted/r.jpg');
    put('.hidden/h1.jpg');
    put('.hidden/h2.jpg');

    const events = await collect();
    expect(files(events)).toEqual(['a.jpg', 'b.HEIC', 'deep/d.dng', 'deep/er/c.Mp4']);
    expect(skipped(events)).toEqual([
      'appledouble ._a.jpg',
      'hidden_folder .hidden',
      'nas_thumbnail @__thumb',
      'nas_thumbnail @eaDir',
      'nas_thumbnail SYNOFILE_THUMB_M.jpg',
      'not_media notes.txt',
      'sidecar a.jpg.json',
      'sidecar a.xmp',
      'system_file .DS_Store',
      'system_folder .Spotlight-V100',
      'system_folder .Trashes',
      'thumbnail_folder .thumbnails',
      'trashed .trashed-99-e.jpg',
      'trashed Recently Deleted',
    ]);
  });

  it('gives the stats the cache keys on, and a sidecar fingerprint that changes with the sidecar', async () => {
    put('p/a.jpg', 'hello');
    put('q/b.jpg', 'bye');
    put('p/a.jpg.json', '{"v":1}');
    const first = (await collect()).filter((e): e is WalkFile => e.type === 'file');
    const a = first.find((f) => f.path === 'p/a.jpg')!;
    const b = first.find((f) => f.path === 'q/b.jpg')!;
    const stats = fs.statSync(path.join(dir, 'p/a.jpg'));
    expect(a).toMatchObject({ absPath: path.join(dir, 'p/a.jpg'), size: 5, mtimeMs: stats.mtimeMs, ino: stats.ino });
    expect(a.sidecarFingerprint).not.toBe('');
    expect(b.sidecarFingerprint).toBe('');

    fs.writeFileSync(path.join(dir, 'p/a.jpg.json'), '{"v":22}');
    const second = (await collect()).filter((e): e is WalkFile => e.type === 'file');
    expect(second.find((f) => f.path === 'p/a.jpg')!.sidecarFingerprint).not.toBe(a.sidecarFingerprint);
  });

  it('applies --exclude patterns, a bare name at any depth', async () => {
    put('keep/a.jpg');
    put('Screenshots/s.png');
    put('2024/Screenshots/s2.png');
    put('2024/raw/x.cr2');
    put('2024/y.cr2');
    const events = await collect({ excluded: createExcludeMatcher(['Screenshots', '2024/raw/**']) });
    expect(files(events)).toEqual(['2024/y.cr2', 'keep/a.jpg']);
  });

  it('reports an unreadable folder as a warning and walks on', async () => {
    put('ok/a.jpg');
    put('locked/b.jpg');
    put('z.jpg');
    // Running as root reads everything, so the refusal comes from an injected opendir.
    const opendir: WalkFs['opendir'] = async (target, options) => {
      if (target.endsWith(`${path.sep}locked`)) {
        throw Object.assign(new Error(`EACCES: permission denied, opendir '${target}'`), { code: 'EACCES' });
      }
      return fs.promises.opendir(target, options);
    };
    const events = await collect({ fs: { opendir } });
    expect(files(events)).toEqual(['ok/a.jpg', 'z.jpg']);
    const warnings = events.filter((e) => e.type === 'warning');
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatchObject({ code: 'unreadable_folder', absPath: path.join(dir, 'locked') });
    // The path is the event's; the message does not repeat it, nor the code twice.
    expect(warnings[0]).toMatchObject({ message: 'permission denied (EACCES)' });
  });

  it('does not follow symlinked folders by default, reports broken links, keeps symlinked files', async () => {
    const outside = fs.mkdtempSync(path.join(os.tmpdir(), 'camroll-walk-out-'));
    try {
      fs.writeFileSync(path.join(outside, 'o.jpg'), 'o');
      put('real/r.jpg');
      fs.symlinkSync(outside, path.join(dir, 'linked'));
      fs.symlinkSync(path.join(outside, 'o.jpg'), path.join(dir, 'link.jpg'));
      fs.symlinkSync(path.join(dir, 'missing.jpg'), path.join(dir, 'broken.jpg'));
      const events = await collect();
      expect(files(events)).toEqual(['link.jpg', 'real/r.jpg']);
      expect(skipped(events)).toEqual(['broken_symlink broken.jpg', 'symlink_folder linked']);

      const followed = await collect({ followSymlinks: true });
      expect(files(followed)).toEqual(['link.jpg', 'linked/o.jpg', 'real/r.jpg']);
    } finally {
      fs.rmSync(outside, { recursive: true, force: true });
    }
  });

  it('walks each real folder once when following a symlink loop', async () => {
    put('a/x.jpg');
    fs.symlinkSync(dir, path.join(dir, 'a', 'back-to-root'));
    fs.symlinkSync(path.join(dir, 'a'), path.join(dir, 'a-again'));
    const events = await collect({ followSymlinks: true });
    const found = files(events);
    expect(found.filter((p) => p.endsWith('x.jpg'))).toHaveLength(1);
    expect(skipped(events).filter((s) => s.startsWith('symlink_loop'))).toHaveLength(2);
  });

  it('skips a FIFO with a media name instead of blocking on it', async () => {
    put('a.jpg');
    execFileSync('mkfifo', [path.join(dir, 'pipe.jpg')]);
    const events = await collect();
    expect(files(events)).toEqual(['a.jpg']);
    expect(skipped(events)).toEqual(['not_media pipe.jpg']);
  });

  it('lists nothing ahead of what the consumer pulls (memory stays bounded)', async () => {
    // An in-memory tree: every call settles on promises alone, so once the event loop has
    // turned, a walk that listed ahead on its own would have listed every folder.
    const folders = new Map<string, string[]>([['/lib', Array.from({ length: 30 }, (_, i) => `d${i}`)]]);
    for (let i = 0; i < 30; i++) folders.set(`/lib/d${i}`, [`f${i}.jpg`]);
    const type = (folder: boolean) => ({
      isDirectory: () => folder,
      isSymbolicLink: () => false,
      isFile: () => !folder,
    });
    let listed = 0;
    const memoryFs: WalkFs = {
      opendir: async (dir) => {
        listed += 1;
        const names = [...(folders.get(dir) ?? [])];
        return {
          read: async () => {
            const name = names.shift();
            return name === undefined ? null : ({ name, ...type(folders.has(`${dir}/${name}`)) } as Dirent);
          },
          close: async () => undefined,
        };
      },
      stat: async (file) => ({ size: 1, mtimeMs: 1, ino: file.length, dev: 1, ...type(folders.has(file)) }) as Stats,
    };
    const iterator = walk({ roots: ['/lib'], fs: memoryFs })[Symbol.asyncIterator]();
    const first = await iterator.next();
    expect(first.done).toBe(false);
    for (let turn = 0; turn < 10; turn++) await new Promise((resolve) => setImmediate(resolve));
    // The root and the first folder: nothing more until the consumer asks.
    expect(listed).toBe(2);
    let count = 1;
    while (!(await iterator.next()).done) count += 1;
    expect(count).toBe(30);
    expect(listed).toBe(31);
  });

  it('leaves out excluded files without counting them, media or not', async () => {
    put('a.jpg');
    put('notes.txt');
    put('shots/s.png');
    const events = await collect({ excluded: createExcludeMatcher(['*.txt', 'shots']) });
    expect(files(events)).toEqual(['a.jpg']);
    expect(skipped(events)).toEqual([]);
  });

  it('walks a folder too large to hold whole, with the fingerprint of all its sidecars', async () => {
    const big = path.join(dir, 'big');
    fs.mkdirSync(big);
    for (let i = 0; i < 4200; i++) fs.writeFileSync(path.join(big, `IMG_${i}.jpg`), '');
    fs.writeFileSync(path.join(big, 'zz-last.xmp'), '<x/>');
    const first = (await collect()).filter((e): e is WalkFile => e.type === 'file');
    expect(first).toHaveLength(4200);
    expect(new Set(first.map((f) => f.sidecarFingerprint)).size).toBe(1);
    expect(first[0]!.sidecarFingerprint).not.toBe('');
    // The sidecar may be listed after the first 4,096 entries: editing it still changes every file's key.
    fs.writeFileSync(path.join(big, 'zz-last.xmp'), '<x edited="1"/>');
    const second = (await collect()).filter((e): e is WalkFile => e.type === 'file');
    expect(second[0]!.sidecarFingerprint).not.toBe(first[0]!.sidecarFingerprint);
  });
});

describe('countMediaFiles (the listing that gives progress its total)', () => {
  it('counts what the walk finds, under the same rules, without examining plain files', async () => {
    put('a.jpg');
    put('deep/b.HEIC');
    put('deep/er/c.mp4');
    put('notes.txt');
    put('a.jpg.json', '{}');
    put('._a.jpg');
    put('@eaDir/x.jpg');
    put('.hidden/h.jpg');
    put('Screenshots/s.png');
    const outside = fs.mkdtempSync(path.join(os.tmpdir(), 'camroll-count-out-'));
    try {
      fs.writeFileSync(path.join(outside, 'o.jpg'), 'o');
      fs.symlinkSync(outside, path.join(dir, 'linked'));
      fs.symlinkSync(path.join(outside, 'o.jpg'), path.join(dir, 'link.jpg'));
      fs.symlinkSync(dir, path.join(dir, 'deep', 'loop'));
      for (const followSymlinks of [false, true]) {
        const options = { roots: [dir], excluded: createExcludeMatcher(['Screenshots']), followSymlinks };
        const running: number[] = [];
        const total = await countMediaFiles(options, (n) => running.push(n));
        expect(total).toBe(files(await collect(options)).length);
        expect(running.at(-1)).toBe(total);
        expect([...running].sort((x, y) => x - y)).toEqual(running); // it only grows
      }
    } finally {
      fs.rmSync(outside, { recursive: true, force: true });
    }
  });
});
