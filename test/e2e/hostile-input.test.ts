import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collect, spawnCamroll, tempHome, type RunResult } from './helpers/camroll.js';
import {
  blanksZip,
  expansionBomb,
  overlapZip,
  paxBomb,
  PHOTO,
  writeSidecarFolder,
  writeTar,
} from '../helpers/hostile-corpus.js';

const MB = 1024 * 1024;
/** What the issue allows a scan of a hostile archive: the process's peak resident memory. */
const PEAK_RSS_LIMIT = 300 * MB;

/**
 * Hostile exports on the real binary (issue: one crafted file costs only itself): each is
 * made here at the scale the audit measured, or as near as a test can afford, and each test
 * fails on the code before the limits (a process aborted or over 1 GB, a scan that ran past
 * a minute, innocent files failed with a thread, a coordinate made up by coercion).
 */

interface Line {
  path: string;
  media?: { latitude: number | null; longitude: number | null; taken_at: string | null };
  source?: { warnings?: { code: string; message: string }[] };
  error?: { code: string; message: string };
}

/** A run and its peak resident memory (VmHWM, read from /proc while it runs; null where there is none). */
interface Measured extends RunResult {
  lines: Line[];
  peakRssBytes: number | null;
}

function peakOf(child: ChildProcess): { stop(): number | null } {
  let peak: number | null = null;
  const read = (): void => {
    try {
      const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
      const kb = Number(/VmHWM:\s+(\d+) kB/.exec(status)?.[1]);
      if (Number.isFinite(kb)) peak = Math.max(peak ?? 0, kb * 1024);
    } catch {
      // gone, or no /proc here
    }
  };
  const timer = setInterval(read, 25);
  return {
    stop() {
      clearInterval(timer);
      return peak;
    },
  };
}

describe('hostile exports on the real binary', () => {
  let home: ReturnType<typeof tempHome>;
  let work: string;

  async function scan(dir: string, timeoutMs = 60_000): Promise<Measured> {
    const child = spawnCamroll(['scan', '--jsonl', '--no-cache', '--archives', dir], { env: home.env, cwd: work });
    const peak = peakOf(child);
    const run = await collect(child, timeoutMs);
    const peakRssBytes = peak.stop();
    const lines = run.stdout
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => JSON.parse(line) as Line);
    return { ...run, lines, peakRssBytes };
  }

  const fresh = (name: string): string => {
    const dir = join(work, name);
    mkdirSync(dir, { recursive: true });
    return dir;
  };

  beforeAll(() => {
    home = tempHome();
    work = mkdtempSync(join(home.dir, 'hostile-'));
  });
  afterAll(() => rmSync(home.dir, { recursive: true, force: true }));

  it("the issue's 2 MB .tgz whose PAX header claims a 2 GiB path: that member is an archive_limit line, the others are read, memory stays flat", async () => {
    // Two gigabytes of `a`s in 2 MB: before the cap the process aborted (V8 fatal error, 4.3 GB).
    const dir = fresh('pax');
    await writeTar(join(dir, 'takeout.tgz'), paxBomb(2048 * MB));
    const run = await scan(dir);
    expect(run.code).toBe(1); // a problem line
    const byPath = new Map(run.lines.map((line) => [line.path.split('!/')[1], line]));
    expect([...byPath.keys()].sort()).toEqual([
      'Takeout/after/IMG_1000.jpg',
      'Takeout/after/IMG_1001.jpg',
      'Takeout/before/IMG_1000.jpg',
      'Takeout/before/IMG_1001.jpg',
      'Takeout/bomb.jpg',
    ]);
    expect(byPath.get('Takeout/bomb.jpg')?.error).toEqual({
      code: 'archive_limit',
      message: expect.stringContaining('PAX extended header declares 2147483648 bytes, more than the 65536-byte limit'),
    });
    expect(run.lines.filter((line) => line.error).length).toBe(1);
    if (run.peakRssBytes !== null) expect(run.peakRssBytes).toBeLessThan(PEAK_RSS_LIMIT);
  }, 120_000);

  it('a zip of 3,000 directory entries sharing one 8 MB member is one archive_limit line, at once', async () => {
    // 24 GB to inflate from 0.3 MB: before the check it ran for minutes.
    const dir = fresh('overlap');
    writeFileSync(join(dir, 'takeout.zip'), overlapZip(3000, 8 * MB));
    const run = await scan(dir, 30_000);
    expect(run.code).toBe(1);
    expect(run.lines).toEqual([
      {
        path: 'takeout.zip',
        error: {
          code: 'archive_limit',
          message: expect.stringMatching(/"IMG_0000\.jpg" and "IMG_0001\.jpg" use the same bytes/),
        },
      },
    ]);
  });

  it('a .tgz of 6 MB that inflates to 1.25 GiB ends at the budget with one archive_limit line', async () => {
    const dir = fresh('expansion');
    await writeTar(join(dir, 'takeout.tgz'), expansionBomb(1.25 * 1024 * MB), 1);
    const run = await scan(dir);
    expect(run.code).toBe(1);
    const errors = run.lines.filter((line) => line.error);
    expect(errors).toEqual([
      {
        path: 'takeout.tgz',
        error: { code: 'archive_limit', message: expect.stringContaining('inflates past 1073741824 bytes') },
      },
    ]);
    // What came before the budget was read.
    expect(run.lines.some((line) => line.path.endsWith('Takeout/before/IMG_1000.jpg') && line.media)).toBe(true);
    if (run.peakRssBytes !== null) expect(run.peakRssBytes).toBeLessThan(PEAK_RSS_LIMIT);
  });

  it('a zip of 1,200 blanks of 1 MiB (each under the ratio floor) ends at the budget with one archive_limit line', async () => {
    const dir = fresh('blanks');
    writeFileSync(join(dir, 'takeout.zip'), blanksZip(1200, MB));
    const run = await scan(dir);
    expect(run.code).toBe(1);
    const limits = run.lines.filter((line) => line.error?.code === 'archive_limit');
    expect(limits).toEqual([
      {
        path: 'takeout.zip',
        error: { code: 'archive_limit', message: expect.stringContaining('inflates past 1073741824 bytes') },
      },
    ]);
    // The blanks before the budget are read (and are no photos), those after it are not.
    expect(run.lines.length).toBe(1025);
  });

  it('an XMP sidecar of 150,000 attributes costs its photo a warning, and the eight others nothing', async () => {
    const dir = fresh('sidecar');
    const names = writeSidecarFolder(dir);
    const run = await scan(dir);
    expect(run.code, run.stderr).toBe(0);
    expect(run.lines.map((line) => line.path).sort()).toEqual(names);
    expect(run.lines.filter((line) => line.error)).toEqual([]);
    const hostile = run.lines.find((line) => line.path.endsWith('IMG_1004.jpg'))!;
    expect(hostile.media?.taken_at).not.toBeNull();
    expect(hostile.source?.warnings).toEqual([
      { code: 'skipped_sidecar', message: expect.stringContaining('more than 10000 attributes') },
    ]);
  });

  it('a Takeout JSON whose coordinates are a string and an array gives no place of its own, and says why', async () => {
    const dir = fresh('takeout');
    writeFileSync(join(dir, 'IMG_1.jpg'), PHOTO);
    writeFileSync(
      join(dir, 'IMG_1.jpg.json'),
      JSON.stringify({ photoTakenTime: { timestamp: '1720829730' }, geoData: { latitude: '40.75', longitude: [1] } }),
    );
    const run = await scan(dir);
    expect(run.code, run.stderr).toBe(0);
    const [line] = run.lines;
    // The photo's own GPS, never (40.75, 1); the sidecar's time is a number and stands.
    expect(line?.media).toMatchObject({ latitude: 48.8386, longitude: 2.3786, taken_at: '2024-07-13T00:15:30Z' });
    expect(line?.source?.warnings?.map((w) => w.message)).toEqual([
      expect.stringContaining('geoData.latitude is "40.75", not a number'),
      expect.stringContaining('geoData.longitude is [1], not a number'),
    ]);
  });
});
