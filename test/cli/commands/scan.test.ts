import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli, useTempHome } from '../helpers/run-cli.js';

const LIBRARY = join(import.meta.dirname, '..', '..', '..', 'fixtures', 'library');
const PHOTO = join(LIBRARY, 'events', 'cape-town', 'IMG_7001.jpg');
let home: ReturnType<typeof useTempHome>;
beforeEach(() => {
  home = useTempHome();
});
afterEach(() => home.cleanup());

describe('camroll scan FILE: why did this photo (not) match?', () => {
  it('explains each value: which rule gave the time, the zone it used, where the place came from', async () => {
    const result = await runCli(['scan', PHOTO]);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(
      [
        'IMG_7001.jpg',
        '  id           sha256:a6b32e768eed565f239a45b872fe920c0e5e7c38796664657c23716365959bab',
        '  taken_at     2022-02-19T13:30:00Z  from the local EXIF time, placed in the time zone at the coordinates',
        '               zone Africa/Johannesburg at the coordinates, UTC+02:00 then',
        '  coordinates  -33.9035, 18.4112  from EXIF GPS',
        '  type         photo',
        '  device       HUAWEI P30',
        '  matching     can be matched (place and time known)',
        '  origin       own  (camera_metadata: it names the camera that made it)',
        '  sent         yes',
        '',
        '',
      ].join('\n'),
    );
  });

  it('a broken file is explained by its error, and the exit code says a file was unreadable', async () => {
    const result = await runCli(['scan', join(LIBRARY, 'broken', 'truncated.jpg')]);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain(
      'truncated.jpg\n  error        data at 24+786 lies past the end of the file (200 bytes) [truncated_file]\n',
    );
  });

  it('--jsonl gives the same line a folder scan gives, with its source', async () => {
    const result = await runCli(['scan', PHOTO, '--jsonl']);
    expect(result.code).toBe(0);
    const line = JSON.parse(result.stdout.trim());
    expect(line).toMatchObject({
      path: 'IMG_7001.jpg',
      media: {
        id: 'sha256:a6b32e768eed565f239a45b872fe920c0e5e7c38796664657c23716365959bab',
        taken_at: '2022-02-19T13:30:00Z',
      },
      source: { taken_at: 'timezone_lookup', coordinates: 'exif_gps' },
    });
  });

  it('a file inside a folder also given is read once; a folder given with files gets the summary', async () => {
    const result = await runCli(['scan', join(LIBRARY, 'events'), PHOTO, '--jsonl']);
    const ids = result.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l).media?.id);
    expect(
      ids.filter((id) => id === 'sha256:a6b32e768eed565f239a45b872fe920c0e5e7c38796664657c23716365959bab'),
    ).toHaveLength(1);
    const mixed = await runCli(['scan', join(LIBRARY, 'broken'), PHOTO]);
    expect(mixed.stdout).toMatch(/^Scanned 5 files in /);
  });

  it('a path that does not exist is a usage error', async () => {
    const result = await runCli(['scan', join(LIBRARY, 'nope.jpg')]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('no such folder or file');
  });

  it('an --exclude glob too long to compile is a usage error on scan and sync, not a crash', async () => {
    const long = 'a'.repeat(70_000);
    for (const command of ['scan', 'sync']) {
      const result = await runCli([command, LIBRARY, '--exclude', long, ...(command === 'sync' ? ['--dry-run'] : [])]);
      expect(result.code, command).toBe(2);
      expect(result.stderr).toMatch(/--exclude 'a{40}… \(70000 characters\)' is not a glob camroll can use/);
      expect(result.stderr).not.toContain('internal_error');
    }
  });
});
