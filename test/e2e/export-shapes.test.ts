import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, runCamroll, tempHome, type RunResult } from './helpers/camroll.js';

/**
 * One export whatever its shape, on the real binary: a Takeout whose parts mix .zip and .tgz
 * gives what the folders it was made from give (a zip part's photo meets its JSON in a .tgz
 * part), and in one .tgz an XMP sidecar that follows its photo in the stream is applied
 * (fixtures/exports/xmp-late.tgz, scripts/make-export-fixtures.sh).
 */

const LIBRARY = join(ROOT, 'fixtures', 'library');
const ARCHIVES = join(ROOT, 'fixtures', 'archives');
const EXPORTS = join(ROOT, 'fixtures', 'exports');

interface Line {
  path: string;
  media?: { id: string; taken_at: string | null; latitude: number | null; longitude: number | null };
  source?: { taken_at: string | null; coordinates: string | null; paired_with?: string };
  error?: { code: string };
}

const parseLines = (run: RunResult): Line[] =>
  run.stdout
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as Line);

/** A path below the archive (or the library) it is in. */
const belowArchive = (path: string): string => path.replace(/^[^!]*!\//, '');

/** What a line says, its partner's path (`source.paired_with`) taken below its archive too. */
const facts = (line: Line): unknown => ({
  media: line.media,
  source:
    line.source?.paired_with === undefined
      ? line.source
      : { ...line.source, paired_with: belowArchive(line.source.paired_with) },
  error: line.error?.code,
});

/** Lines keyed by the path below the archive (or the library). */
const byMember = (run: RunResult): Map<string, unknown> =>
  new Map(parseLines(run).map((line) => [belowArchive(line.path), facts(line)]));

describe('exports of mixed shapes', () => {
  let home: ReturnType<typeof tempHome>;
  const scan = (args: string[], cwd: string): Promise<RunResult> =>
    runCamroll(['scan', ...args, '--jsonl', '--no-cache'], { env: home.env, cwd });
  beforeAll(() => {
    home = tempHome();
  });
  afterAll(() => rmSync(home.dir, { recursive: true, force: true }));

  it('a Takeout mixing .zip and .tgz parts: the zip part’s photos get their JSON from the .tgz part', async () => {
    // The folders packed into the parts (scripts/make-archive-fixtures.sh), as a scan of the library shows them.
    const folder = new Map(
      [...byMember(await scan(['.'], LIBRARY))].filter(([path]) =>
        ['takeout/', 'events/new-york/'].some((prefix) => path.startsWith(prefix)),
      ),
    );
    for (const parts of [
      ['takeout-001.zip', 'takeout-002.tgz'],
      ['takeout-001.tgz', 'takeout-002.zip'],
    ]) {
      const run = await scan(parts, ARCHIVES);
      expect(run.code, run.stderr).toBe(0);
      const members = byMember(run);
      expect(members.size).toBe(folder.size);
      expect(members).toEqual(folder);
    }
    // The 2022 photos of part 1 take their time from the JSON of part 2.
    const [photo] = [...folder.entries()].filter(([path]) => /Photos from 2022\/.*\.jpg$/.test(path));
    expect((photo![1] as { source: { taken_at: string } }).source.taken_at).toBe('takeout');
  });

  it('in one .tgz, XMP sidecars that come after their photos are applied as beside them', async () => {
    const library = byMember(await scan(['.'], LIBRARY));
    const run = await scan([join(EXPORTS, 'xmp-late.tgz')], ROOT);
    expect(run.code, run.stderr).toBe(0);
    const members = byMember(run);
    expect(members.size).toBe(2);
    for (const path of ['events/london/DSC_3003.jpg', 'events/sydney/DSC_2002.jpg'])
      expect(members.get(path), path).toEqual(library.get(path));
    expect((members.get('events/london/DSC_3003.jpg') as { source: { coordinates: string } }).source.coordinates).toBe(
      'xmp',
    );
  });
});
