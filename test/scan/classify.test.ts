import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/errors.js';
import { classifyPath, createExcludeMatcher, type ClassifyOptions, type PathClass } from '../../src/scan/classify.js';
import { createWatchFilter } from '../../src/sync/watch.js';

const excluded = createExcludeMatcher(['Screenshots', '2019/raw/**', '*.png']);

describe('classifyPath: what a path is, one rule for the walk, the archives and --watch', () => {
  it.each<[string, ClassifyOptions, PathClass]>([
    ['IMG_1.jpg', {}, { kind: 'media' }],
    ['Trip/IMG_1.HEIC', {}, { kind: 'media' }],
    ['Trip/clip.mov', {}, { kind: 'media' }],
    ['Trip/IMG_1.jpg.json', {}, { kind: 'sidecar' }],
    ['Trip/IMG_1.xmp', {}, { kind: 'sidecar' }],
    ['Takeout/takeout-002.zip', {}, { kind: 'archive', format: 'zip' }],
    ['old/backup.TAR.GZ', {}, { kind: 'archive', format: 'tgz' }],
    ['old/backup.tgz', {}, { kind: 'archive', format: 'tgz' }],
    ['old/backup.tar', {}, { kind: 'archive', format: 'tar' }],
    ['notes.txt', {}, { kind: 'skip', reason: 'not_media', at: 'notes.txt' }],
    ['Trip/Photo Details.csv', {}, { kind: 'skip', reason: 'not_media', at: 'Trip/Photo Details.csv' }],
    ['Trip/._IMG_1.jpg', {}, { kind: 'skip', reason: 'appledouble', at: 'Trip/._IMG_1.jpg' }],
    ['Trip/._IMG_1.jpg.json', {}, { kind: 'skip', reason: 'appledouble', at: 'Trip/._IMG_1.jpg.json' }],
    ['.DS_Store', {}, { kind: 'skip', reason: 'system_file', at: '.DS_Store' }],
    [
      'DCIM/.trashed-1700000000-IMG_2.jpg',
      {},
      { kind: 'skip', reason: 'trashed', at: 'DCIM/.trashed-1700000000-IMG_2.jpg' },
    ],
    ['@eaDir/IMG_1.jpg/SYNOFILE_THUMB_M.jpg', {}, { kind: 'skip', reason: 'nas_thumbnail', at: '@eaDir' }],
    ['a/Recently Deleted/IMG_3.jpg', {}, { kind: 'skip', reason: 'trashed', at: 'a/Recently Deleted' }],
    ['a/.thumbnails/b/IMG_3.jpg', {}, { kind: 'skip', reason: 'thumbnail_folder', at: 'a/.thumbnails' }],
    ['.Trashes/501/IMG_3.jpg', {}, { kind: 'skip', reason: 'system_folder', at: '.Trashes' }],
    ['a/.git/x.jpg', {}, { kind: 'skip', reason: 'hidden_folder', at: 'a/.git' }],
    // `.`, `..` and empty parts are names in an archive, never followed nor junk.
    ['./a/../IMG_1.jpg', {}, { kind: 'media' }],
    ['/abs//IMG_1.jpg', {}, { kind: 'media' }],
    // As a folder: its own name is a folder's rule.
    ['Trip', { type: 'folder' }, { kind: 'folder' }],
    ['Trip/.hidden', { type: 'folder' }, { kind: 'skip', reason: 'hidden_folder', at: 'Trip/.hidden' }],
    ['Trip/@__thumb', { type: 'folder' }, { kind: 'skip', reason: 'nas_thumbnail', at: 'Trip/@__thumb' }],
    // --exclude: the path, or a folder on its way; before any junk rule of a later part.
    ['Screenshots/IMG_1.jpg', { excluded }, { kind: 'excluded' }],
    ['2019/raw/IMG_1.jpg', { excluded }, { kind: 'excluded' }],
    ['2019/raw/.hidden/IMG_1.jpg', { excluded }, { kind: 'excluded' }],
    ['a/b.png', { excluded }, { kind: 'excluded' }],
    ['2019/IMG_1.jpg', { excluded }, { kind: 'media' }],
    ['.hidden/Screenshots/IMG_1.jpg', { excluded }, { kind: 'skip', reason: 'hidden_folder', at: '.hidden' }],
  ])('%s %o', (relPath, options, expected) => {
    expect(classifyPath(relPath, options)).toEqual(expected);
  });

  it('--watch leaves out exactly what the scan does not read (media, sidecars and archives are watched)', () => {
    const skip = createWatchFilter(['/lib'], ['Screenshots']);
    const cases: [string, boolean | undefined, boolean][] = [
      ['/lib/Trip/IMG_1.jpg', true, false],
      ['/lib/Trip/IMG_1.jpg.json', true, false],
      ['/lib/takeout-001.zip', true, false],
      ['/lib/notes.txt', true, true],
      ['/lib/Trip/._IMG_1.jpg', true, true],
      ['/lib/@eaDir/x/IMG_1.jpg', true, true],
      ['/lib/Screenshots/IMG_1.jpg', true, true],
      ['/lib/Trip/.hidden', false, true],
      ['/lib/Trip', false, false],
      // Not known yet: left out only when it is junk as a file and as a folder.
      ['/lib/Trip/.DS_Store', undefined, true],
      ['/lib/Trip/notes.txt', undefined, false],
      ['/lib/Trip/SYNOFILE_THUMB_M.jpg', undefined, false],
    ];
    for (const [absPath, isFile, skipped] of cases) expect(skip(absPath, isFile), absPath).toBe(skipped);
  });
});

describe('createExcludeMatcher', () => {
  it('refuses a glob picomatch cannot compile as a usage error naming it, not a crash', () => {
    const long = `${'a'.repeat(70_000)}*`;
    expect(() => createExcludeMatcher(['Screenshots', long])).toThrow(UsageError);
    expect(() => createExcludeMatcher(['Screenshots', long])).toThrow(/--exclude 'a{40}… \(70001 characters\)'/);
    expect(createExcludeMatcher(['Screenshots'])?.('a/Screenshots')).toBe(true);
  });
});
