import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collect, spawnCamroll, tempHome, type RunResult } from './helpers/camroll.js';
import { PHOTO, writeSidecarFolder } from '../helpers/hostile-corpus.js';

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
