import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, runCamroll, tempHome, type RunResult } from './helpers/camroll.js';
import { MIB, moovAtEnd, moovInMiddle, writeTgz } from './helpers/long-video.js';
import { createSyncEnv, type SyncEnv } from './helpers/sync-env.js';

/**
 * Exports read in place: the real binary on fixtures/archives (made from fixtures/library by
 * scripts/make-archive-fixtures.sh with zip, tar and python's zipfile), compared with the
 * scan of the folders they were made from.
 */

const LIBRARY = join(ROOT, 'fixtures', 'library');
const ARCHIVES = join(ROOT, 'fixtures', 'archives');
/** The folders packed into takeout-001/-002 (Recently Deleted is skipped in both scans). */
const PACKED = ['takeout/', 'events/new-york/'];

interface Line {
  path: string;
  media?: { id: string; taken_at: string | null; latitude: number | null; longitude: number | null; filename: string };
  source?: { taken_at: string | null; coordinates: string | null };
  error?: { code: string; message: string };
}

interface Summary {
  files: number;
  errors: Record<string, number>;
  skipped: Record<string, number>;
}

const parseLines = (run: RunResult): Line[] =>
  run.stdout
    .trim()
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as Line);

/** What must be equal between a file and the same file read from an archive. */
const facts = (line: Line): unknown => ({
  media: line.media,
  source: memberSource(line.source),
  error: line.error?.code,
});

/** `source` with the file a pair's member goes with named by its member path (the archive part dropped). */
const memberSource = (source: Line['source']): unknown => {
  const paired = (source as { paired_with?: string } | undefined)?.paired_with;
  return paired === undefined
    ? source
    : { ...source, paired_with: paired.slice(paired.lastIndexOf('!/') + 1).replace(/^\//, '') };
};

describe('camroll scan of exports read in place', () => {
  let home: ReturnType<typeof tempHome>;
  let folder: Map<string, unknown>;
  const scan = (args: string[], cwd = ARCHIVES): Promise<RunResult> =>
    runCamroll(['scan', ...args], { env: home.env, cwd });

  beforeAll(async () => {
    home = tempHome();
    const run = await scan(['.', '--jsonl', '--no-cache'], LIBRARY);
    folder = new Map(
      parseLines(run)
        .filter((line) => PACKED.some((prefix) => line.path.startsWith(prefix)))
        .map((line) => [line.path, facts(line)]),
    );
    expect(folder.size).toBeGreaterThanOrEqual(14);
  });
  afterAll(() => rmSync(home.dir, { recursive: true, force: true }));

  /** The archive scan's lines keyed by member name, with the archive part checked and dropped. */
  const byMember = (lines: Line[], archives: RegExp): Map<string, unknown> =>
    new Map(
      lines.map((line) => {
        const [archive, member] = line.path.split('!/');
        expect(archive).toMatch(archives);
        return [member!, facts(line)];
      }),
    );

  it.each([
    ['zip', ['takeout-001.zip', 'takeout-002.zip']],
    ['tgz', ['takeout-001.tgz', 'takeout-002.tgz']],
  ])(
    'a Takeout in two %s parts scans as the folder it was made from: ids, capture times, places, sidecars across parts',
    async (_kind, parts) => {
      const run = await scan([...parts, '--jsonl', '--no-cache']);
      expect(run.code, run.stderr).toBe(0);
      const lines = parseLines(run);
      expect(byMember(lines, /^takeout-00[12]\.(zip|tgz)$/)).toEqual(folder);
      // The 2022 photos are in part 1, their JSON in part 2: the Takeout rule applied across parts.
      const crossPart = lines.filter(
        (line) => line.path.includes('Photos from 2022') && line.source?.taken_at === 'takeout',
      );
      expect(crossPart.length).toBeGreaterThanOrEqual(6);
      expect(run.stderr).toMatch(/skipped: .*appledouble 1/);
      expect(run.stderr).toMatch(/nas_thumbnail 1/);
      expect(run.stderr).toMatch(/trashed 1/);
    },
  );

  it("part 1 unpacked in a folder and part 2 still zipped are one tree: the zip's JSON applies to the folder's photos", async () => {
    const unpacked = mkdtempSync(join(home.dir, 'part1-'));
    const from = join(LIBRARY, 'takeout', 'Takeout', 'Google Photos', 'Photos from 2022');
    const to = join(unpacked, 'takeout', 'Takeout', 'Google Photos', 'Photos from 2022');
    mkdirSync(to, { recursive: true });
    for (const name of readdirSync(from).filter((n) => n.endsWith('.jpg')))
      copyFileSync(join(from, name), join(to, name));
    const run = await scan([unpacked, join(ARCHIVES, 'takeout-002.zip'), '--jsonl', '--no-cache']);
    expect(run.code, run.stderr).toBe(0);
    const photos = parseLines(run).filter((line) => line.path.includes('Photos from 2022'));
    expect(photos).toHaveLength(8);
    for (const line of photos) {
      const member = line.path.slice(line.path.indexOf('takeout/Takeout/'));
      expect(facts(line)).toEqual(folder.get(member));
    }
  });

  it('re-scans an unchanged zip from the scan cache with the same lines', async () => {
    const first = await scan(['takeout-001.zip', 'takeout-002.zip', '--jsonl']);
    const second = await scan(['takeout-001.zip', 'takeout-002.zip', '--json']);
    expect(first.code).toBe(0);
    const summary = JSON.parse(second.stdout) as Summary & { cached: number };
    expect(summary.cached).toBe(summary.files);
    const again = await scan(['takeout-001.zip', 'takeout-002.zip', '--jsonl']);
    expect(byMember(parseLines(again), /zip$/)).toEqual(byMember(parseLines(first), /zip$/));
  });

  it('a zip cut short (no central directory): every whole member is read, the cut is an error line, exit 1', async () => {
    for (const [file, cutAt] of [
      ['cut.zip', 'takeout/Takeout/Google Photos/Photos from 2022/IMG_4003.jpg'],
      ['cut-streamed.zip', 'travel/nz-lake-taupo.jpg'],
    ] as const) {
      const run = await scan([file, '--jsonl', '--no-cache']);
      expect(run.code, run.stderr).toBe(1);
      const lines = parseLines(run);
      const cut = lines.filter((line) => line.error);
      expect(cut).toEqual([
        { path: `${file}!/${cutAt}`, error: { code: 'truncated_archive', message: expect.any(String) } },
      ]);
      const whole = lines.filter((line) => line.media);
      expect(whole.length).toBeGreaterThanOrEqual(2);
      const library = await scan(
        whole.map((line) => line.path.split('!/')[1]!).concat('--jsonl', '--no-cache'),
        LIBRARY,
      );
      const ids = new Set(parseLines(library).map((line) => line.media?.id));
      for (const line of whole) expect(ids.has(line.media!.id)).toBe(true);
    }
  });

  it('a .tgz cut short keeps what was read before the damage, and says where it stops', async () => {
    const run = await scan(['cut.tgz', '--jsonl', '--no-cache']);
    expect(run.code).toBe(1);
    const lines = parseLines(run);
    expect(lines.filter((line) => line.error)).toEqual([
      {
        path: expect.stringMatching(/^cut\.tgz!\//),
        error: { code: 'truncated_archive', message: expect.any(String) },
      },
    ]);
    const whole = lines.filter((line) => line.media);
    expect(whole.length).toBeGreaterThanOrEqual(4);
    for (const line of whole)
      expect((folder.get(line.path.split('!/')[1]!) as { media: { id: string } }).media.id).toBe(line.media!.id);
  });

  it('a .tgz video over 64 MiB is read from its ends: its id and metadata as from the file; a moov between the ends is archive_limit', async () => {
    const dir = mkdtempSync(join(home.dir, 'long-'));
    const mov = readFileSync(join(LIBRARY, 'events', 'sao-paulo', 'IMG_5001.MOV'));
    const ids = await writeTgz(join(dir, 'takeout-001.tgz'), [
      ['Takeout/Google Photos/long.mov', moovAtEnd(mov, 65 * MIB)],
      ['Takeout/Google Photos/middle.mov', moovInMiddle(mov, 40 * MIB, 30 * MIB)],
    ]);
    const run = await scan(['takeout-001.tgz', '--jsonl', '--no-cache'], dir);
    expect(run.code, run.stderr).toBe(1);
    const lines = new Map(parseLines(run).map((line) => [line.path, line]));
    const file = parseLines(await scan(['events/sao-paulo/IMG_5001.MOV', '--jsonl', '--no-cache'], LIBRARY))[0]!;
    expect(lines.get('takeout-001.tgz!/Takeout/Google Photos/long.mov')).toEqual({
      ...file,
      path: 'takeout-001.tgz!/Takeout/Google Photos/long.mov',
      media: { ...file.media, id: ids.get('Takeout/Google Photos/long.mov'), filename: 'long.mov' },
    });
    expect(lines.get('takeout-001.tgz!/Takeout/Google Photos/middle.mov')?.error).toMatchObject({
      code: 'archive_limit',
      message: expect.stringContaining('extract it from the archive'),
    });
  });

  it('archives met in a folder are counted and named until --archives opens them', async () => {
    const dir = mkdtempSync(join(home.dir, 'exports-'));
    mkdirSync(join(dir, 'downloads'));
    for (const part of ['takeout-001.zip', 'takeout-002.zip'])
      copyFileSync(join(ARCHIVES, part), join(dir, 'downloads', part));
    const closed = await scan(['.', '--json', '--no-cache'], dir);
    expect(closed.code, closed.stderr).toBe(0);
    expect(JSON.parse(closed.stdout)).toMatchObject({ files: 0, skipped: { archive: 2 } });
    expect(closed.stderr).toContain('2 archives were not opened; add --archives to read them in place');

    const opened = await scan(['.', '--archives', '--jsonl', '--no-cache'], dir);
    expect(opened.code, opened.stderr).toBe(0);
    expect(byMember(parseLines(opened), /^downloads\/takeout-00[12]\.zip$/)).toEqual(folder);
  });

  it('a bomb, an encrypted member and names that would escape a folder: error lines or plain names, never a prompt', async () => {
    const bomb = await scan(['bomb.zip', '--jsonl', '--no-cache']);
    expect(bomb.code).toBe(1);
    expect(parseLines(bomb).find((line) => line.error)).toMatchObject({
      path: 'bomb.zip!/DCIM/IMG_0001.jpg',
      error: { code: 'archive_limit' },
    });
    expect(parseLines(bomb).filter((line) => line.media)).toHaveLength(1);

    const encrypted = await scan(['encrypted.zip', '--jsonl', '--no-cache']);
    expect(encrypted.code).toBe(1);
    expect(parseLines(encrypted).find((line) => line.error)).toMatchObject({
      path: 'encrypted.zip!/travel/india-thar.jpg',
      error: { code: 'unsupported_format', message: expect.stringContaining('encrypted') },
    });

    const names = await scan(['names.zip', '--jsonl', '--no-cache']);
    expect(names.code, names.stderr).toBe(0);
    expect(
      parseLines(names)
        .map((line) => line.path)
        .sort(),
    ).toEqual([
      'names.zip!/../../escape/patagonia.jpg',
      'names.zip!//etc/patagonia.jpg',
      'names.zip!/nul/pat\u0000gonia.jpg',
    ]);
  });

  it(
    'an iCloud export: Photo Details CSVs across parts give photos without an instant of their own one, deleted ' +
      'rows are trashed, the nested zip is read',
    async () => {
      const run = await scan([
        'iCloud Photos Part 1 of 2.zip',
        'iCloud Photos Part 2 of 2.zip',
        '--jsonl',
        '--no-cache',
      ]);
      expect(run.code, run.stderr).toBe(0);
      const lines = new Map(
        parseLines(run).map((line) => [line.path.replace(/^iCloud Photos Part \d of 2\.zip!\//, ''), line]),
      );
      const taken = (path: string): unknown => [lines.get(path)?.media?.taken_at, lines.get(path)?.source?.taken_at];
      // Part 2's CSV describes a photo of part 1; rows give a UTC minute.
      expect(taken('iCloud Photos/Photos/IMG_0101.JPG')).toEqual(['2022-06-04T12:11:00Z', 'icloud_csv']);
      expect(taken('iCloud Photos/Photos/IMG_0104.JPG')).toEqual(['2023-12-31T23:59:00Z', 'icloud_csv']);
      // A photo with an instant of its own keeps it (the CSV ranks last).
      expect(taken('iCloud Photos/Photos/IMG_0102.JPG')).toEqual(['2023-02-14T15:00:00Z', 'timezone_lookup']);
      // Inside the nested zip, with its own CSV.
      expect(taken('iCloud Shared Albums.zip!/Shared/Trip/IMG_0202.JPG')).toEqual([
        '2024-03-01T08:00:00Z',
        'icloud_csv',
      ]);
      expect(taken('iCloud Shared Albums.zip!/Shared/Trip/IMG_0201.JPG')).toEqual(['2024-01-15T12:50:00Z', 'gps_time']);
      // deleted=yes and Recently Deleted/ are trashed, not read.
      expect(lines.has('iCloud Photos/Photos/IMG_0103.JPG')).toBe(false);
      expect(lines.size).toBe(5);
      expect(run.stderr).toMatch(/trashed 2/);
    },
  );

  it('decodes names as the zip says: UTF-8 when flagged, CP437 otherwise', async () => {
    const run = await scan(['encodings.zip', '--jsonl', '--no-cache']);
    expect(run.code, run.stderr).toBe(0);
    expect(
      parseLines(run)
        .map((line) => line.path)
        .sort(),
    ).toEqual(['encodings.zip!/cp437/café.jpg', 'encodings.zip!/Été/Ünïcode_写真.jpg']);
  });

  it('reads zip64 records', async () => {
    const run = await scan(['zip64.zip', '--jsonl', '--no-cache']);
    expect(run.code, run.stderr).toBe(0);
    const library = await scan(['travel/patagonia.jpg', 'travel/india-thar.jpg', '--jsonl', '--no-cache'], LIBRARY);
    const expected = new Map(parseLines(library).map((line) => [line.path, facts(line)]));
    expect(byMember(parseLines(run), /^zip64\.zip$/)).toEqual(expected);
  });
});

describe('camroll sync of exports read in place', () => {
  let env: SyncEnv;
  beforeAll(async () => {
    env = await createSyncEnv();
  });
  afterAll(async () => env?.close());

  it('a sync of the folder, then of its zips, sends nothing the second time; a cut zip never completes', async () => {
    const sync = (args: string[]): Promise<RunResult> =>
      runCamroll(['sync', ...args, '--email', 'takeout@example.com', '--json', '--no-cache'], {
        env: env.clientEnv(env.serve.baseUrl),
        cwd: ROOT,
      });
    const first = await sync([join(LIBRARY, 'takeout'), join(LIBRARY, 'events', 'new-york')]);
    expect(first.code, first.stderr).toBe(0);
    const sent = JSON.parse(first.stdout) as { sent: number; files: number };
    // 14 files, the edited copy collapsed into its original (one item per moment).
    expect(sent.sent).toBeGreaterThanOrEqual(13);

    const zips = await sync([join(ARCHIVES, 'takeout-001.zip'), join(ARCHIVES, 'takeout-002.zip')]);
    expect(zips.code, zips.stderr).toBe(0);
    expect(JSON.parse(zips.stdout)).toMatchObject({
      files: sent.files,
      sent: 0,
      skipped_already_sent: sent.sent,
      left_out: { edited_copy: { files: 1, signals: { 'file name': 1 } } },
      sync_complete: true,
    });

    const cut = await sync([join(ARCHIVES, 'cut.zip')]);
    expect(JSON.parse(cut.stdout)).toMatchObject({ sync_complete: false });
  });
});
