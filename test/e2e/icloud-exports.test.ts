import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, collect, ROOT, runCamroll, tempHome, type RunResult } from './helpers/camroll.js';
import { storedZip } from './helpers/stored-zip.js';
import { createSyncEnv, type SyncEnv } from './helpers/sync-env.js';

/**
 * iCloud Photos exports whatever their shape, on the real binary: the parts unzipped into
 * folders (fixtures/exports/icloud-folders, the committed zips unpacked by
 * scripts/make-export-fixtures.sh) give what the zips give, and a `Photo Details.csv` far
 * larger than any photo is streamed, its rows kept only for the export's photos; a CSV that
 * cannot be used is a warning naming it.
 */

const ARCHIVES = join(ROOT, 'fixtures', 'archives');
const FOLDERS = join(ROOT, 'fixtures', 'exports', 'icloud-folders');
const PARTS = ['iCloud Photos Part 1 of 2', 'iCloud Photos Part 2 of 2'];
const LIBRARY = join(ROOT, 'fixtures', 'library');

interface Line {
  path: string;
  media?: { id: string; taken_at: string | null; filename: string };
  source?: { taken_at: string | null };
}

const parseLines = (run: RunResult): Line[] =>
  run.stdout
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as Line);

/** Member or file path below the part, mapped to what was found. */
const byPath = (run: RunResult): Map<string, unknown> =>
  new Map(
    parseLines(run).map((line) => [
      line.path.replace(/^.*iCloud Photos Part \d of 2(\.zip!)?\//, ''),
      [line.media?.id, line.media?.taken_at, line.source?.taken_at],
    ]),
  );

describe('an iCloud export unzipped into folders', () => {
  let env: SyncEnv;
  beforeAll(async () => {
    env = await createSyncEnv();
  });
  afterAll(async () => env?.close());

  const run = (args: string[]): Promise<RunResult> =>
    runCamroll(args, { env: env.clientEnv(env.serve.baseUrl), cwd: ROOT });

  it("reads its Photo Details CSVs as the zips' (CSV time, deleted rows skipped): the same lines", async () => {
    const zips = await run(['scan', ...PARTS.map((part) => join(ARCHIVES, `${part}.zip`)), '--jsonl', '--no-cache']);
    expect(zips.code, zips.stderr).toBe(0);
    const folders = await run(['scan', FOLDERS, '--jsonl', '--no-cache', '--archives']);
    expect(folders.code, folders.stderr).toBe(0);
    const fromFolders = byPath(folders);
    expect(fromFolders).toEqual(byPath(zips));
    expect(fromFolders.get('iCloud Photos/Photos/IMG_0101.JPG')).toEqual([
      expect.any(String),
      '2022-06-04T12:11:00Z',
      'icloud_csv',
    ]);
    expect(fromFolders.has('iCloud Photos/Photos/IMG_0103.JPG')).toBe(false); // deleted=yes
    expect(folders.stderr).toMatch(/trashed 2/);
  });

  it('a sync of the folders after the zips sends nothing', async () => {
    const sync = (roots: string[]): Promise<RunResult> =>
      run(['sync', ...roots, '--email', 'icloud@example.com', '--json', '--no-cache', '--archives']);
    const zips = await sync(PARTS.map((part) => join(ARCHIVES, `${part}.zip`)));
    expect(zips.code, zips.stderr).toBe(0);
    expect(JSON.parse(zips.stdout)).toMatchObject({ sync_complete: true });
    const folders = await sync([FOLDERS]);
    expect(folders.code, folders.stderr).toBe(0);
    expect(JSON.parse(folders.stdout)).toMatchObject({ sent: 0, sync_complete: true });
  });
});

describe('a Photo Details CSV larger than the old 64 MB cap', () => {
  let home: ReturnType<typeof tempHome>;
  let work: string;
  beforeAll(() => {
    home = tempHome();
    work = mkdtempSync(join(home.dir, 'large-csv-'));
  });
  afterAll(() => rmSync(home.dir, { recursive: true, force: true }));

  it('is streamed: its photo gets its row, the memory stays bounded, an unusable CSV is named', async () => {
    const head = 'imgName,fileChecksum,favorite,hidden,deleted,originalCreationDate,viewCount,importDate\n';
    const rows: Buffer[] = [Buffer.from(head)];
    // 700,000 rows for photos that are not in the export (about 70 MB), the export's own last.
    const filler =
      ',AbCdEfGhIjKlMnOp0123456789,no,no,no,"Saturday June 4,2022 12:11 PM GMT",0,"Saturday June 4,2022 12:15 PM GMT"';
    for (let block = 0; block < 70; block++) {
      const lines: string[] = [];
      for (let i = 0; i < 10_000; i++) lines.push(`IMG_${block}_${i}.HEIC${filler}`);
      rows.push(Buffer.from(`${lines.join('\n')}\n`));
    }
    rows.push(Buffer.from('IMG_0101.JPG,x,no,no,no,"Tuesday March 5,2024 7:45 PM GMT",0,x\n'));
    const csv = Buffer.concat(rows);
    expect(csv.length).toBeGreaterThan(64 * 1024 * 1024);
    const zip = join(work, 'iCloud Photos Part 1 of 1.zip');
    writeFileSync(
      zip,
      storedZip([
        {
          name: 'iCloud Photos/Photos/IMG_0101.JPG',
          data: readFileSync(join(LIBRARY, 'misc', 'local-time-no-gps.jpg')),
        },
        { name: 'iCloud Photos/Photos/Photo Details.csv', data: csv },
        { name: 'iCloud Photos/Photos/Photo Details-1.csv', data: Buffer.from('name,when\nIMG_0101.JPG,today\n') },
      ]),
    );
    rows.length = 0;
    // The binary's peak resident memory, written by the process itself as it exits.
    const preload = join(work, 'max-rss.cjs');
    writeFileSync(
      preload,
      "process.on('exit', () => require('node:fs').writeSync(2, '\\nmax-rss-kb ' + process.resourceUsage().maxRSS + '\\n'));\n",
    );
    const child = spawn(process.execPath, ['--require', preload, BIN, 'scan', zip, '--jsonl', '--no-cache'], {
      env: home.env,
      cwd: work,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const scan = await collect(child, 180_000);
    const [line] = parseLines(scan);
    expect(line?.media?.taken_at).toBe('2024-03-05T19:45:00Z');
    expect(line?.source?.taken_at).toBe('icloud_csv');
    expect(scan.stderr).toMatch(/Photo Details-1\.csv.*imgName/);
    const maxRssKb = Number(/max-rss-kb (\d+)/.exec(scan.stderr)?.[1]);
    expect(maxRssKb).toBeGreaterThan(0);
    expect(maxRssKb).toBeLessThan(300 * 1024);
  }, 180_000);
});
