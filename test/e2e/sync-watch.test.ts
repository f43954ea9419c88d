import { createHash, randomUUID } from 'node:crypto';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collect, ROOT, runCamroll, spawnCamroll, waitForStderr } from './helpers/camroll.js';
import { makeJpeg } from './helpers/exif-jpeg.js';
import { storedZip } from './helpers/stored-zip.js';
import { createSyncEnv, TEST_KEY, type SyncEnv, useSyncLibrary } from './helpers/sync-env.js';

// At the São Paulo anchor event (5) of the demo catalog.
const PHOTO = join(ROOT, 'fixtures', 'library', 'events', 'sao-paulo', 'IMG_5003.jpg');

describe('camroll sync --watch against camroll serve', () => {
  let env: SyncEnv;
  let lib: string;
  useSyncLibrary({ files: 6, anchorShare: 0, seed: 3, perFolder: 6 }, (suite) => ({ env, lib } = suite));

  it('sends a photo copied in after the pass, skips junk and what was sent, and ends cleanly on Ctrl-C', async () => {
    const child = spawnCamroll(['sync', lib, '--email', 'watch@example.com', '--watch', '--json'], {
      env: env.clientEnv(env.serve.baseUrl),
    });
    const done = collect(child, 120_000);
    await waitForStderr(
      child,
      done,
      /^camroll: watching 1 folder for new or changed files(?: \(polling\))?; Ctrl-C stops$/m,
    );

    // Junk first (a thumbnail folder, a text file), then the photo in a new folder.
    mkdirSync(join(lib, '.thumbnails'));
    writeFileSync(join(lib, '.thumbnails', 'thumb.jpg'), 'not a photo');
    writeFileSync(join(lib, 'notes.txt'), 'not media');
    mkdirSync(join(lib, 'arrived'));
    copyFileSync(PHOTO, join(lib, 'arrived', 'IMG_5003.jpg'));
    await waitForStderr(
      child,
      done,
      /^camroll: watch: 1 new or changed file, sent 1 \(accepted 1, matched 1, rejected 0\)$/m,
    );

    // The same bytes written again: answered already, nothing is sent again.
    writeFileSync(join(lib, 'arrived', 'IMG_5003.jpg'), readFileSync(PHOTO));
    await waitForStderr(child, done, /^camroll: watch: 1 new or changed file, nothing new to send, 1 already sent$/m);

    child.kill('SIGINT');
    const result = await done;
    // A watch stopped by the user ends normally.
    expect(result.code, result.stderr).toBe(0);
    const summary = JSON.parse(result.stdout) as {
      user_id: string;
      outcome: string;
      sent: number;
      sync_complete: boolean;
      watch: {
        changes: number;
        files: number;
        sent: number;
        matched: number;
        skipped_already_sent: number;
        failed_batches: number;
      };
    };
    expect(summary).toMatchObject({ outcome: 'ok', sent: 6, sync_complete: true });
    expect(summary.watch).toMatchObject({
      changes: 2,
      files: 2,
      sent: 1,
      matched: 1,
      skipped_already_sent: 1,
      failed_batches: 0,
    });
    expect(`${result.stdout}${result.stderr}`).not.toContain(TEST_KEY);

    // The service has the photo, at its event.
    const events = (await env.events(summary.user_id)) as Array<{ id: number; media?: Array<{ media_id: string }> }>;
    expect(events.map((e) => e.id)).toEqual([5]);
    const id = `sha256:${createHash('sha256').update(readFileSync(PHOTO)).digest('hex')}`;
    expect(events[0]!.media?.map((m) => m.media_id)).toEqual([id]);
  }, 120_000);

  it("a Live Photo's video copied in after its still, in another batch, goes with the still: one item", async () => {
    const origins = join(ROOT, 'fixtures', 'origins', 'Takeout', 'Google Photos', 'Photos from 2024');
    // In the run's home, which goes with it; not in the folder watched.
    const report = join(env.dir, 'live-report.jsonl');
    const child = spawnCamroll(['sync', lib, '--email', 'live@example.com', '--watch', '--json', '--report', report], {
      env: env.clientEnv(env.serve.baseUrl),
    });
    const done = collect(child, 120_000);
    await waitForStderr(child, done, /^camroll: watching 1 folder/m);
    mkdirSync(join(lib, 'live'));
    copyFileSync(join(origins, 'IMG_1201.HEIC'), join(lib, 'live', 'IMG_1201.HEIC'));
    await waitForStderr(child, done, /^camroll: watch: 1 new or changed file, sent 1 /m);
    // Its video (Apple's content identifier names the still) arrives in a batch of its own.
    copyFileSync(join(origins, 'IMG_1201.MP4'), join(lib, 'live', 'IMG_1201.MP4'));
    await waitForStderr(
      child,
      done,
      /^camroll: watch: 1 new or changed file, nothing new to send, 1 collapsed into its pair$/m,
    );
    child.kill('SIGINT');
    const result = await done;
    expect(result.code, result.stderr).toBe(0);
    const summary = JSON.parse(result.stdout) as { watch: { files: number; sent: number } };
    expect(summary.watch).toMatchObject({ files: 2, sent: 1 });
    // The report names both halves by the paths the pass shows (under the folder given), not the watch scan's own.
    const lines = readFileSync(report, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines.filter((line) => line.type === 'left_out')).toEqual([
      expect.objectContaining({
        path: 'live/IMG_1201.MP4',
        origin: 'live_photo_video',
        paired_with: 'live/IMG_1201.HEIC',
      }),
    ]);
  }, 120_000);

  it('a sync that fails before watching ends at once: the watches do not keep it alive', async () => {
    const run = await runCamroll(['sync', lib, '--user', randomUUID(), '--watch'], {
      env: env.clientEnv(env.serve.baseUrl),
      timeoutMs: 60_000,
    });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('[user_not_found]');
    expect(run.stderr).not.toContain('watching');
  });
});

/** Photos for the exports below: each has a date and a place (the service accepts it), and bytes of its own. */
const photos = (count: number, from = 0): Array<{ name: string; data: Buffer }> =>
  Array.from({ length: count }, (_, i) => ({
    name: `Takeout/Google Photos/Photos from 2024/IMG_${from + i}.jpg`,
    data: makeJpeg({
      takenAt: new Date(Date.UTC(2024, 0, 1 + from + i, 12)),
      latitude: -35 + i / 100,
      longitude: -130,
      tag: `export-${from + i}`,
    }),
  }));

/** A photo with neither capture time nor coordinates: what it gets comes from a Takeout JSON. */
const bareJpeg = (tag: string): Buffer => makeJpeg({ takenAt: null, latitude: null, longitude: null, tag });
const TRIP = 'Takeout/Google Photos/Trip';
/** The Takeout JSON of `title`: taken on 2024-03-01 in Lisbon. */
const takeoutJson = (title: string): Buffer =>
  Buffer.from(
    JSON.stringify({
      title,
      photoTakenTime: { timestamp: String(Date.UTC(2024, 2, 1, 12) / 1000) },
      geoData: { latitude: 38.7223, longitude: -9.1393, altitude: 0, latitudeSpan: 0, longitudeSpan: 0 },
    }),
  );

interface WatchSummary {
  outcome: string;
  sent: number;
  sync_complete: boolean;
  watch: { changes: number; files: number; sent: number; skipped_already_sent: number; archives_not_opened: number };
}

describe('camroll sync --watch with exports (.zip read in place)', () => {
  let env: SyncEnv;
  let dir: string;
  beforeAll(async () => {
    env = await createSyncEnv();
    dir = mkdtempSync(join(env.dir, 'exports-'));
  });
  afterAll(async () => env?.close());

  /** Starts `sync --watch` with `args` and waits until it says it watches `what`; `stop()` sends Ctrl-C and parses the summary. */
  async function watching(args: string[], email: string, what = '1 folder') {
    const child = spawnCamroll(['sync', ...args, '--email', email, '--watch', '--json'], {
      env: env.clientEnv(env.serve.baseUrl),
      cwd: dir,
    });
    const done = collect(child, 120_000);
    await waitForStderr(
      child,
      done,
      new RegExp(`^camroll: watching ${what} for new or changed files; Ctrl-C stops$`, 'm'),
    );
    return {
      line: (pattern: RegExp) => waitForStderr(child, done, pattern),
      /** The next batch's line, whatever it says. */
      batch: async (): Promise<string> =>
        /^camroll: watch: .*$/m.exec(await waitForStderr(child, done, /^camroll: watch: .*$/m))![0],
      stop: async (): Promise<WatchSummary> => {
        child.kill('SIGINT');
        const result = await done;
        expect(result.code, result.stderr).toBe(0);
        return JSON.parse(result.stdout) as WatchSummary;
      },
    };
  }

  it('a zip given as the root and downloaded again, larger: read again, only its new members are sent', async () => {
    mkdirSync(join(dir, 'root'));
    writeFileSync(join(dir, 'root', 'takeout-001.zip'), storedZip(photos(2)));
    const watch = await watching(['root/takeout-001.zip'], 'zip-root@example.com', '1 export');
    // The new download lands beside it and replaces it at once, as a browser finishes one.
    writeFileSync(join(dir, 'root', 'takeout-001.zip.crdownload'), storedZip(photos(5)));
    renameSync(join(dir, 'root', 'takeout-001.zip.crdownload'), join(dir, 'root', 'takeout-001.zip'));
    await watch.line(
      /^camroll: watch: 1 new or changed file, sent 3 \(accepted 3, matched 0, rejected 0\), 2 already sent$/m,
    );
    const summary = await watch.stop();
    expect(summary).toMatchObject({ outcome: 'ok', sent: 2, sync_complete: true });
    expect(summary.watch).toMatchObject({ changes: 1, files: 5, sent: 3, skipped_already_sent: 2 });
  });

  it('with --archives, a zip that appears in a watched folder is read, and read again when it grows', async () => {
    mkdirSync(join(dir, 'library', 'camera'), { recursive: true });
    writeFileSync(join(dir, 'library', 'camera', 'IMG_1.jpg'), photos(1, 100)[0]!.data);
    const watch = await watching(['library', '--archives'], 'zip-appears@example.com');
    // In a new folder: one the watcher may list before it watches it.
    mkdirSync(join(dir, 'library', 'downloads'));
    writeFileSync(join(dir, 'library', 'downloads', 'takeout-001.zip'), storedZip(photos(3, 200)));
    await watch.line(/^camroll: watch: 1 new or changed file, sent 3 \(accepted 3, matched 0, rejected 0\)$/m);
    writeFileSync(join(dir, 'library', 'downloads', 'takeout-001.zip'), storedZip(photos(4, 200)));
    await watch.line(
      /^camroll: watch: 1 new or changed file, sent 1 \(accepted 1, matched 0, rejected 0\), 3 already sent$/m,
    );
    const summary = await watch.stop();
    expect(summary).toMatchObject({ outcome: 'ok', sent: 1 });
    expect(summary.watch).toMatchObject({ changes: 2, sent: 4, skipped_already_sent: 3, archives_not_opened: 0 });
  });

  it('without --archives, a zip that appears in a watched folder is counted as not opened, as in a pass', async () => {
    mkdirSync(join(dir, 'closed', 'camera'), { recursive: true });
    writeFileSync(join(dir, 'closed', 'camera', 'IMG_1.jpg'), photos(1, 300)[0]!.data);
    const watch = await watching(['closed'], 'zip-closed@example.com');
    writeFileSync(join(dir, 'closed', 'takeout-001.zip'), storedZip(photos(2, 400)));
    await watch.line(
      /^camroll: watch: 1 new or changed file, 1 archive not opened \(add --archives to read it in place\)$/m,
    );
    const summary = await watch.stop();
    expect(summary.watch).toMatchObject({ changes: 1, files: 0, sent: 0, archives_not_opened: 1 });
  });

  it("a part read again, and a changed file beside the parts, keep the other parts' sidecars", async () => {
    // Part 1 holds a photo, part 2 the Takeout JSONs of it and of a photo unpacked into a folder.
    mkdirSync(join(dir, 'tree', 'unpacked', TRIP), { recursive: true });
    const part1 = storedZip([{ name: `${TRIP}/IMG_1.jpg`, data: bareJpeg('tree-1') }]);
    writeFileSync(join(dir, 'tree', 't1.zip'), part1);
    writeFileSync(
      join(dir, 'tree', 't2.zip'),
      storedZip([
        { name: `${TRIP}/IMG_1.jpg.json`, data: takeoutJson('IMG_1.jpg') },
        { name: `${TRIP}/IMG_2.jpg.json`, data: takeoutJson('IMG_2.jpg') },
      ]),
    );
    const unpacked = join(dir, 'tree', 'unpacked', TRIP, 'IMG_2.jpg');
    writeFileSync(unpacked, bareJpeg('tree-2'));
    const watch = await watching(
      ['tree/t1.zip', 'tree/t2.zip', 'tree/unpacked', '--report', 'tree-report.jsonl'],
      'tree@example.com',
      '1 folder and 2 exports',
    );
    // Written again with the same bytes: read on its own, with the sidecars the pass read them with.
    writeFileSync(join(dir, 'tree', 't1.zip'), part1);
    expect(await watch.batch()).toBe('camroll: watch: 1 new or changed file, nothing new to send, 1 already sent');
    writeFileSync(unpacked, bareJpeg('tree-2'));
    expect(await watch.batch()).toBe('camroll: watch: 1 new or changed file, nothing new to send, 1 already sent');
    const summary = await watch.stop();
    expect(summary).toMatchObject({ outcome: 'ok', sent: 2 });
    expect(summary.watch).toMatchObject({ changes: 2, sent: 0, skipped_already_sent: 2 });
    // The report lists what was not accepted: nothing, neither in the pass nor after.
    expect(readFileSync(join(dir, 'tree-report.jsonl'), 'utf8')).not.toMatch(/missing_coordinates/);
  });

  it("with --archives, parts arriving one at a time: a later part's photos meet an earlier part's sidecars", async () => {
    mkdirSync(join(dir, 'arriving', 'camera'), { recursive: true });
    writeFileSync(join(dir, 'arriving', 'camera', 'IMG_1.jpg'), photos(1, 500)[0]!.data);
    const watch = await watching(['arriving', '--archives'], 'arriving@example.com');
    writeFileSync(
      join(dir, 'arriving', 'takeout-002.zip'),
      storedZip([{ name: `${TRIP}/IMG_7.jpg.json`, data: takeoutJson('IMG_7.jpg') }]),
    );
    expect(await watch.batch()).toBe('camroll: watch: 1 new or changed file, nothing new to send');
    writeFileSync(
      join(dir, 'arriving', 'takeout-001.zip'),
      storedZip([{ name: `${TRIP}/IMG_7.jpg`, data: bareJpeg('arriving-7') }]),
    );
    expect(await watch.batch()).toBe(
      'camroll: watch: 1 new or changed file, sent 1 (accepted 1, matched 0, rejected 0)',
    );
    const summary = await watch.stop();
    expect(summary.watch).toMatchObject({ changes: 2, sent: 1 });
  });

  it('with --archives and a folder only, a changed photo keeps what the pass read (no sidecar from a found part)', async () => {
    // Part 1 unpacked, part 2 still zipped inside the folder: the pass reads the photo from its own folder.
    mkdirSync(join(dir, 'found', TRIP), { recursive: true });
    const photo = join(dir, 'found', TRIP, 'IMG_1.jpg');
    writeFileSync(photo, bareJpeg('found-1'));
    writeFileSync(
      join(dir, 'found', 'takeout-002.zip'),
      storedZip([{ name: `${TRIP}/IMG_1.jpg.json`, data: takeoutJson('IMG_1.jpg') }]),
    );
    const watch = await watching(['found', '--archives'], 'found@example.com');
    // The same bytes written again: the same record, so nothing is sent again.
    writeFileSync(photo, bareJpeg('found-1'));
    expect(await watch.batch()).toBe('camroll: watch: 1 new or changed file, nothing new to send, 1 already sent');
    const summary = await watch.stop();
    expect(summary).toMatchObject({ outcome: 'ok', sent: 1 });
    expect(summary.watch).toMatchObject({ changes: 1, sent: 0, skipped_already_sent: 1 });
  });

  it("a part downloaded again keeps the sidecar a folder beside it gave its photo (the folder's wins)", async () => {
    mkdirSync(join(dir, 'own', 'unpacked', TRIP), { recursive: true });
    // The folder's JSON places the photo elsewhere than the part's own copy.
    const edited = JSON.parse(takeoutJson('IMG_2.jpg').toString('utf8')) as { geoData: { latitude: number } };
    edited.geoData.latitude = 40;
    writeFileSync(join(dir, 'own', 'unpacked', TRIP, 'IMG_2.jpg.json'), JSON.stringify(edited));
    const part = storedZip([
      { name: `${TRIP}/IMG_2.jpg`, data: bareJpeg('own-2') },
      { name: `${TRIP}/IMG_2.jpg.json`, data: takeoutJson('IMG_2.jpg') },
    ]);
    writeFileSync(join(dir, 'own', 't1.zip'), part);
    const watch = await watching(['own/unpacked', 'own/t1.zip'], 'own@example.com', '1 folder and 1 export');
    writeFileSync(join(dir, 'own', 't1.zip'), part);
    expect(await watch.batch()).toBe('camroll: watch: 1 new or changed file, nothing new to send, 1 already sent');
    const summary = await watch.stop();
    expect(summary).toMatchObject({ outcome: 'ok', sent: 1 });
    expect(summary.watch).toMatchObject({ changes: 1, sent: 0, skipped_already_sent: 1 });
  });
});
