import { EventEmitter } from 'node:events';
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  createWatchFilter,
  POLL_INTERVAL_MS,
  settleMissed,
  watchLibrary,
  type WatchEvent,
  type WatchOptions,
} from '../../src/sync/watch.js';

const ROOT = '/lib';

describe('settleMissed: when a file the watcher missed is taken', () => {
  const settleMs = 2000;
  const now = 1_000_000;
  const file = (name: string, ageMs: number, size = 10) => ({
    file: name,
    mtimeMs: now - ageMs,
    signature: `${size}:${now - ageMs}`,
  });

  it('takes a file older than the settle time at once', () => {
    expect(settleMissed([file('old.jpg', 5000)], new Map(), now, settleMs)).toEqual({
      settled: ['old.jpg'],
      changing: new Map(),
    });
  });

  it('waits for a young file, and takes it when the next listing finds it unchanged', () => {
    const first = settleMissed([file('new.jpg', 100)], new Map(), now, settleMs);
    expect(first.settled).toEqual([]);
    expect([...first.changing.keys()]).toEqual(['new.jpg']);
    expect(settleMissed([file('new.jpg', 100)], first.changing, now, settleMs).settled).toEqual(['new.jpg']);
  });

  it('keeps waiting while each listing finds it grown, however many listings that takes', () => {
    let previous = new Map<string, string>();
    for (let listing = 1; listing <= 100; listing += 1) {
      const result = settleMissed([file('copying.mov', 0, listing * 1000)], previous, now, settleMs);
      expect(result.settled).toEqual([]);
      previous = result.changing;
    }
    expect(settleMissed([file('copying.mov', 0, 100 * 1000)], previous, now, settleMs).settled).toEqual([
      'copying.mov',
    ]);
  });

  it('takes a file dated in the future once two listings agree (a share whose clock is ahead)', () => {
    const ahead = file('ahead.jpg', -3_600_000);
    const first = settleMissed([ahead], new Map(), now, settleMs);
    expect(first.settled).toEqual([]);
    expect(settleMissed([ahead], first.changing, now, settleMs).settled).toEqual(['ahead.jpg']);
  });
});

describe('createWatchFilter: the walk rules for watched paths', () => {
  const skip = createWatchFilter([ROOT], ['broken', 'travel/**', '*.mov']);
  it.each([
    ['/lib/2024/IMG_1.jpg', true, false],
    ['/lib/2024/IMG_1.JPG', true, false],
    ['/lib/2024/IMG_1.json', true, false], // a sidecar: read with its media
    ['/lib/2024/notes.txt', true, true],
    ['/lib/2024/._IMG_1.jpg', true, true],
    ['/lib/2024/.DS_Store', undefined, true],
    ['/lib/.thumbnails/a.jpg', true, true],
    ['/lib/.thumbnails', false, true],
    ['/lib/a/@eaDir/b/c.jpg', true, true],
    ['/lib/Recently Deleted/x.jpg', true, true],
    ['/lib/broken', false, true],
    ['/lib/x/broken/y.jpg', true, true],
    ['/lib/travel/y.jpg', true, true],
    ['/lib/other/travel/y.jpg', true, false], // 'travel/**' has a slash: relative to the root
    ['/lib/clip.mov', true, true],
    // Archives are reported: the follower reads them or counts them as not opened.
    ['/lib/downloads/takeout-001.zip', true, false],
    ['/lib/downloads/takeout-001.TGZ', true, false],
    ['/lib/downloads/takeout-001.tar.gz', true, false],
    ['/lib/downloads/export.tar', true, false],
    ['/lib/downloads/takeout-001.zip.crdownload', true, true], // still downloading under another name
    ['/lib/.thumbnails/takeout-001.zip', true, true],
    ['/lib/travel/takeout-001.zip', true, true],
    ['/lib/2024', false, false],
    ['/lib/2024', undefined, false],
    ['/lib', false, false],
    ['/elsewhere/x.jpg', true, false],
  ] as const)('%s (file: %s) -> skipped %s', (path, isFile, expected) => {
    expect(skip(path, isFile)).toBe(expected);
  });
});

describe('watchLibrary', () => {
  let dir: string;
  let controller: AbortController;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'camroll-watch-'));
    mkdirSync(join(dir, 'lib', 'sub'), { recursive: true });
    mkdirSync(join(dir, 'lib', '.thumbnails'));
    mkdirSync(join(dir, 'lib', 'skipme'));
    controller = new AbortController();
  });
  afterEach(() => {
    controller.abort();
    vi.useRealTimers();
    rmSync(dir, { recursive: true, force: true });
  });

  /** Iterates until `until` says stop; every event seen so far is returned. */
  async function take(
    events: AsyncIterator<WatchEvent>,
    until: (seen: WatchEvent[]) => boolean,
  ): Promise<WatchEvent[]> {
    const seen: WatchEvent[] = [];
    while (!until(seen)) {
      const next = await events.next();
      if (next.done) break;
      seen.push(next.value);
    }
    return seen;
  }

  const isProbe = (file: string): boolean => file.includes('probe-');

  /**
   * Waits until the watcher reports a probe file in each folder. A polling watcher learns a
   * folder's state on its first stat, which a loaded machine can run after a file was already
   * created there (that file then never counts as new, and writing it again changes nothing
   * the folder's poller sees); so each folder not yet heard from gets a new probe file every
   * poll interval, until one is reported.
   */
  async function untilWatched(events: AsyncIterator<WatchEvent>, folders: string[]): Promise<void> {
    const pending = new Set(folders);
    let round = 0;
    const probe = (): void => {
      round += 1;
      for (const folder of pending) writeFileSync(join(folder, `probe-${round}.jpg`), 'probe');
    };
    probe();
    const again = setInterval(probe, POLL_INTERVAL_MS);
    try {
      while (pending.size > 0) {
        const next = await events.next();
        if (next.done) throw new Error('the watcher ended before reporting its probes');
        if (next.value.type === 'changes') for (const file of next.value.files) pending.delete(dirname(file));
      }
    } finally {
      clearInterval(again);
    }
  }

  const start = (poll = false): AsyncIterator<WatchEvent> =>
    watchLibrary({
      roots: [join(dir, 'lib')],
      exclude: ['skipme'],
      poll,
      settleMs: 50,
      quietMs: 50,
      signal: controller.signal,
    })[Symbol.asyncIterator]();

  it.each([false, true])(
    'reports settled media files in one batch, leaving out junk, excluded and non-media files (poll %s)',
    async (poll) => {
      const events = start(poll);
      expect(await take(events, (seen) => seen.length === 1)).toEqual([{ type: 'ready', polling: poll }]);
      const lib = join(dir, 'lib');
      await untilWatched(events, [lib, join(lib, 'sub')]);
      writeFileSync(join(lib, '.thumbnails', 'thumb.jpg'), 'x');
      writeFileSync(join(lib, 'skipme', 'no.jpg'), 'x');
      writeFileSync(join(lib, 'sub', 'notes.txt'), 'x');
      writeFileSync(join(lib, 'sub', 'a.jpg'), 'a');
      writeFileSync(join(lib, 'b.heic'), 'b');
      writeFileSync(join(lib, 'sub', 'takeout-001.zip'), 'z');
      const changed = (events: WatchEvent[]): string[] =>
        events.flatMap((e) => (e.type === 'changes' ? e.files : [])).filter((f) => !isProbe(f));
      const seen = await take(events, (s) => changed(s).length >= 3);
      const files = changed(seen);
      expect(files.sort()).toEqual([
        join(lib, 'b.heic'),
        join(lib, 'sub', 'a.jpg'),
        join(lib, 'sub', 'takeout-001.zip'),
      ]);
      controller.abort();
      expect((await events.next()).done).toBe(true);
    },
  );

  it('a sidecar that changes brings back the media files of its folder', async () => {
    const lib = join(dir, 'lib');
    writeFileSync(join(lib, 'sub', 'a.jpg'), 'a');
    writeFileSync(join(lib, 'sub', 'b.jpg'), 'b');
    const events = start();
    await take(events, (seen) => seen.length === 1);
    writeFileSync(join(lib, 'sub', 'a.jpg.json'), '{"geoData":{}}');
    const seen = await take(events, (s) => s.some((e) => e.type === 'changes'));
    const batch = seen.find((e) => e.type === 'changes');
    expect(batch?.type === 'changes' ? batch.files.sort() : null).toEqual([
      join(lib, 'sub', 'a.jpg'),
      join(lib, 'sub', 'b.jpg'),
    ]);
  });

  it('ends at once when the signal is already aborted', async () => {
    controller.abort();
    const events = start();
    expect((await events.next()).done).toBe(true);
  });

  /**
   * The next event of a watch whose timers (the quiet wait, the relisting) run on the fake
   * clock: the clock moves `stepMs` at a time, with a turn of the real event loop between
   * steps for the listings' file-system calls, until the event comes. Bounded in steps, not
   * in time: a watch that never reports fails after 5,000 steps.
   */
  async function nextEvent(events: AsyncIterator<WatchEvent>, stepMs: number): Promise<WatchEvent> {
    const next = await settleOnFakeClock(events.next(), stepMs);
    if (next.done) throw new Error('the watch ended early');
    return next.value;
  }

  /** Waits for `pending` while the fake clock moves in steps (see nextEvent). */
  async function settleOnFakeClock<T>(pending: Promise<T>, stepMs: number): Promise<T> {
    let settled = false;
    const watched = pending.finally(() => {
      settled = true;
    });
    for (let step = 0; step < 5000 && !settled; step += 1) {
      await vi.advanceTimersByTimeAsync(stepMs);
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
    if (!settled) throw new Error('nothing reported');
    return watched;
  }

  /**
   * The watch on `lib`, started and ready, with a stand-in watcher that reports only what a
   * test emits (its timers on the fake clock): chokidar lists a new folder before it watches it, and what is created in
   * between is never reported. `added` collects the folders the watch hands it.
   */
  async function watchWithStandIn(settleMs: number, onAdd: (folder: string) => void = () => undefined) {
    const added: string[] = [];
    const watcher = Object.assign(new EventEmitter(), {
      add(folder: string) {
        added.push(folder);
        onAdd(folder);
      },
      close: async () => undefined,
    });
    const factory = (() => watcher) as unknown as NonNullable<WatchOptions['watch']>;
    const lib = join(dir, 'lib');
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    const events = watchLibrary({ roots: [lib], settleMs, quietMs: 20, signal: controller.signal, watch: factory })[
      Symbol.asyncIterator
    ]();
    const first = events.next();
    watcher.emit('ready');
    expect((await first).value).toEqual({ type: 'ready', polling: false });
    return { watcher, added, lib, events };
  }

  it('a new folder is listed again: files and folders the watcher missed while it set its watch are reported', async () => {
    // The stand-in reports the folder and one of its files, and no more.
    const { watcher, added, lib, events } = await watchWithStandIn(50);

    const fresh = join(lib, 'imported');
    mkdirSync(join(fresh, 'day-2', '.thumbnails'), { recursive: true });
    const past = new Date(Date.now() - 60_000);
    const older = ['seen.jpg', 'missed.jpg', 'day-2/deeper.heic', 'day-2/takeout-001.tgz', 'day-2/.thumbnails/t.jpg'];
    for (const file of [...older, 'notes.txt']) {
      writeFileSync(join(fresh, file), file);
      utimesSync(join(fresh, file), past, past);
    }
    writeFileSync(join(fresh, 'still-copying.jpg'), 'x'); // modified just now: taken once it has settled
    writeFileSync(join(fresh, 'day-2', 'takeout-002.zip'), 'x'); // an export part, the same
    watcher.emit('addDir', fresh);
    watcher.emit('add', join(fresh, 'seen.jpg'));

    const reported: string[] = [];
    while (reported.length < 6) {
      const next = await nextEvent(events, 20);
      if (next.type === 'changes') reported.push(...next.files);
    }
    expect(reported.sort()).toEqual(
      [
        'day-2/deeper.heic',
        'day-2/takeout-001.tgz',
        'day-2/takeout-002.zip',
        'missed.jpg',
        'seen.jpg',
        'still-copying.jpg',
      ].map((f) => join(fresh, f)),
    );
    // The missed subfolder is watched from now on; the junk one is not.
    expect(added).toEqual([join(fresh, 'day-2')]);
  });

  it('a large new folder: every missed file once, over several stat batches; an empty new folder reports nothing', async () => {
    const { watcher, added, lib, events } = await watchWithStandIn(20);
    const big = join(lib, 'card-dump');
    const empty = join(lib, 'empty');
    mkdirSync(join(big, 'day-1'), { recursive: true });
    mkdirSync(join(big, '@eaDir'), { recursive: true }); // a NAS's thumbnails: never opened
    mkdirSync(empty);
    const past = new Date(Date.now() - 60_000);
    const expected: string[] = [];
    for (let i = 0; i < 600; i += 1) {
      const file = join(big, i % 2 === 0 ? 'day-1' : '', `IMG_${i}.JPG`);
      writeFileSync(file, 'x');
      utimesSync(file, past, past);
      expected.push(file);
    }
    writeFileSync(join(big, '@eaDir', 'IMG_1.JPG'), 'x');
    watcher.emit('addDir', empty);
    watcher.emit('addDir', big);
    const reported: string[] = [];
    while (reported.length < expected.length) {
      const next = await nextEvent(events, 20);
      if (next.type === 'changes') reported.push(...next.files);
    }
    expect(reported.sort()).toEqual(expected.sort());
    expect(added).toEqual([join(big, 'day-1')]);
  });

  it('a missed file dated in the future (a share whose clock is ahead) is taken once two listings see it unchanged', async () => {
    // Before, such a file counted as "still being written" until its date came, and the
    // folder's listings gave up after a minute: the file was never reported.
    const { watcher, lib, events } = await watchWithStandIn(20);
    const fresh = join(lib, 'from-nas');
    mkdirSync(fresh);
    const ahead = new Date(Date.now() + 3_600_000);
    writeFileSync(join(fresh, 'ahead.jpg'), 'x');
    utimesSync(join(fresh, 'ahead.jpg'), ahead, ahead);
    watcher.emit('addDir', fresh);
    // Bounded in steps of the fake clock: without the fix nothing ever comes, and nextEvent says so.
    expect(await nextEvent(events, 20)).toEqual({ type: 'changes', files: [join(fresh, 'ahead.jpg')] });
  });

  it('ending the watch while a new folder is being listed adds nothing to the closed watcher', async () => {
    // Ctrl-C during a listing: chokidar's add() after close() reopens it and the process
    // never exits. The stand-in aborts at the first folder the listing hands it.
    const { watcher, added, lib, events } = await watchWithStandIn(20, () => controller.abort());
    const fresh = join(lib, 'imported');
    mkdirSync(join(fresh, 'a', 'b', 'c'), { recursive: true });
    const ended = events.next();
    watcher.emit('addDir', fresh);
    expect((await settleOnFakeClock(ended, 20)).done).toBe(true);
    expect(added).toEqual([join(fresh, 'a')]);
  });
});
