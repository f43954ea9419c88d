import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { splitChanges, startWatch } from '../../src/sync/follow.js';
import type { ChangeSender } from '../../src/sync/run.js';
import { createSyncTally } from '../../src/sync/summary.js';

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

describe('follow: the totals a watch returns (its --json member)', () => {
  it('keeps unreadable the count of files (scan_errors = unreadable + damaged); not_read counts folders too', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'camroll-follow-'));
    const controller = new AbortController();
    try {
      const watch = await startWatch({
        roots: [dir],
        scan: { exclude: [], followSymlinks: false, cache: false, cacheDir: join(dir, '.cache') },
        cwd: dir,
        poll: false,
        signal: controller.signal,
        settleMs: 50,
        quietMs: 50,
      });
      // One batch: a file whose bytes could not be read, a damaged file, and a folder that could not be listed.
      const changes: ChangeSender = {
        async send(_scan, io) {
          io.summary?.file('error', 'read_error');
          io.summary?.file('error', 'corrupt_file');
          controller.abort();
          return { counts: io.summary?.counts ?? createSyncTally().counts, interrupted: false, unreadable: 2 };
        },
      };
      const following = watch.follow(changes, (event) => {
        if (event.type === 'watching') writeFileSync(join(dir, 'new.jpg'), 'not a photo');
      });
      const totals = await following;
      await watch.close();
      expect(totals).toMatchObject({ changes: 1, files: 2, unreadable: 1, damaged: 1, scan_errors: 2, not_read: 2 });
      expect(totals.scan_errors).toBe(totals.unreadable + totals.damaged);
    } finally {
      controller.abort();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
