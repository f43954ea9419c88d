import { describe, expect, it } from 'vitest';
import { splitChanges } from '../../src/sync/follow.js';

describe('splitChanges: which changed files a watch reads, and which archives it leaves closed', () => {
  const files = [
    '/lib/a.jpg',
    '/lib/downloads/takeout-001.zip',
    '/lib/downloads/takeout-002.TGZ',
    '/lib/downloads/export.tar',
    '/exports/takeout-003.tar.gz',
  ];

  it('without --archives, reads media files and the archives named as roots; the others stay closed', () => {
    expect(splitChanges(files, { roots: ['/lib', '/exports/takeout-003.tar.gz'], archives: false })).toEqual({
      read: ['/lib/a.jpg', '/exports/takeout-003.tar.gz'],
      closed: ['/lib/downloads/takeout-001.zip', '/lib/downloads/takeout-002.TGZ', '/lib/downloads/export.tar'],
    });
  });

  it('with --archives, reads every archive met in a watched folder', () => {
    expect(splitChanges(files, { roots: ['/lib', '/exports/takeout-003.tar.gz'], archives: true })).toEqual({
      read: files,
      closed: [],
    });
  });

  it('an empty batch splits into nothing', () => {
    expect(splitChanges([], { roots: ['/lib'], archives: false })).toEqual({ read: [], closed: [] });
  });
});
