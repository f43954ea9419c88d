import * as fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import yauzl from 'yauzl';
import { storedZip } from '../../e2e/helpers/stored-zip.js';
import { findMember } from '../helpers/zip-surgery.js';
import Database from 'better-sqlite3';
import { createSourceRun, openArchives } from '../../../src/scan/sources/open.js';
import { memberPath } from '../../../src/scan/sources/member-path.js';
import { archiveKindOf, archiveRootOf, rootKindOf, splitMemberPath } from '../../../src/scan/sources/formats.js';
import { createSidecarIndex } from '../../../src/scan/archive/sidecar-index.js';
import { limitProblem } from '../../../src/scan/archive/types.js';
import { ArchiveError } from '../../../src/errors.js';
import { centralDirectory, localHeaders, type ZipEntry } from '../../../src/scan/archive/zip-list.js';
import { recordDisplayPath } from '../../../src/scan/roots.js';
import { scanLibrary } from '../../../src/scan/scan.js';
import type { ScanRecord } from '../../../src/scan/types.js';

const ARCHIVES = fileURLToPath(new URL('../../../fixtures/archives/', import.meta.url));
const ICLOUD_PARTS = ['iCloud Photos Part 1 of 2.zip', 'iCloud Photos Part 2 of 2.zip'];
let dir: string;

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'camroll-archive-'));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

async function list(entries: AsyncIterable<ZipEntry>): Promise<{ names: string[]; cut: ArchiveError | null }> {
  const names: string[] = [];
  try {
    for await (const entry of entries) if (!entry.folder) names.push(entry.name);
  } catch (error) {
    if (error instanceof ArchiveError && error.code === 'truncated_archive') return { names, cut: error };
    throw error;
  }
  return { names, cut: null };
}

describe('archive names and paths', () => {
  it.each([
    ['takeout-001.zip', 'zip'],
    ['Export.TGZ', 'tgz'],
    ['a.tar.gz', 'tgz'],
    ['b.tar', 'tar'],
    ['c.7z', null],
    ['photo.jpg', null],
  ])('%s is a %s archive', (name, kind) => {
    expect(archiveKindOf(name)).toBe(kind);
  });

  it('tells a root by its stats and name: a folder named .zip is a folder, a file named .zip an archive', () => {
    const file = { isFile: () => true };
    const folder = { isFile: () => false };
    expect(rootKindOf('/d/takeout-001.zip', folder)).toBe('folder');
    expect(rootKindOf('/d/takeout-001.zip', file)).toBe('archive');
    expect(rootKindOf('/d/Export.TGZ', file)).toBe('archive');
    expect(rootKindOf('/d/IMG_1.jpg', file)).toBe('file');
  });

  it('splits a member path at the archive, keeping the member name as stored', () => {
    expect(splitMemberPath(memberPath('/d/x.zip', '../../etc/a.jpg'))).toEqual({
      archive: '/d/x.zip',
      member: '../../etc/a.jpg',
    });
    expect(splitMemberPath('/d/x.zip!/inner.zip!/a.jpg')).toEqual({ archive: '/d/x.zip', member: 'inner.zip!/a.jpg' });
    // A folder whose name ends in '!' is not an archive.
    expect(splitMemberPath('/d/wow!/a.jpg')).toBeNull();
  });

  it('shows a member of one of several roots relative to the folder, without normalising its name', () => {
    const record = { path: 'ignored', absPath: '/work/dl/x.zip!/../evil.jpg', archive: '/work/dl/x.zip' } as ScanRecord;
    expect(recordDisplayPath(record, { roots: ['/work/dl/x.zip', '/work/other'], cwd: '/work' })).toBe(
      'dl/x.zip!/../evil.jpg',
    );
  });
});

describe('zip bomb limits', () => {
  it.each([
    [4_000_000, 3_900_000, null],
    [900_000, 1_000, null], // small: a blank image may compress well
    [20 * 1024 * 1024, 20_000, 'would expand'],
    [65 * 1024 ** 3, 65 * 1024 ** 3, 'declares'],
  ])('%d bytes from %d compressed', (size, compressed, problem) => {
    const found = limitProblem(size, compressed);
    if (problem === null) expect(found).toBeNull();
    else expect(found).toContain(problem);
  });
});

describe('zip listing', () => {
  it('walks the local headers of a zip cut short: the whole members, then where it stops', async () => {
    await expect(list(centralDirectory(path.join(ARCHIVES, 'cut.zip')))).rejects.toThrow(/central directory/);
    const cut = await list(localHeaders(path.join(ARCHIVES, 'cut.zip')));
    expect(cut.names.length).toBe(3);
    expect(cut.cut?.member).toBe('takeout/Takeout/Google Photos/Photos from 2022/IMG_4003.jpg');
    // With data descriptors (sizes after each member), found by inflating.
    const streamed = await list(localHeaders(path.join(ARCHIVES, 'cut-streamed.zip')));
    expect(streamed).toMatchObject({
      names: ['travel/patagonia.jpg', 'travel/india-thar.jpg'],
      cut: { member: 'travel/nz-lake-taupo.jpg' },
    });
  });

  it('lists a central directory larger than one read-ahead block (1 MiB), every entry once, in order', async () => {
    // 12,000 entries of ~130 bytes: about 1.6 MB of directory, read across two blocks.
    const names = Array.from(
      { length: 12_000 },
      (_, i) => `Takeout/Google Photos/Photos from 2023/${'x'.repeat(40)}-${i}.jpg`,
    );
    const file = path.join(dir, 'large-directory.zip');
    fs.writeFileSync(file, storedZip(names.map((name) => ({ name, data: Buffer.from(name) }))));
    const listed: ZipEntry[] = [];
    for await (const entry of centralDirectory(file)) listed.push(entry);
    expect(listed.map((entry) => entry.name)).toEqual(names);
    expect(listed.at(-1)!.size).toBe(Buffer.byteLength(names.at(-1)!));
  });

  it('walking the local headers of a whole zip lists what its central directory lists', async () => {
    const file = path.join(ARCHIVES, 'takeout-001.zip');
    const walked = await list(localHeaders(file));
    expect(walked.cut).toBeNull();
    expect(walked.names).toEqual((await list(centralDirectory(file))).names);
  });
});

describe('archives that are not what their name says', () => {
  it('an empty .zip is a download that never started; a text file named .zip is no zip', async () => {
    fs.writeFileSync(path.join(dir, 'empty.zip'), '');
    fs.writeFileSync(path.join(dir, 'notes.zip'), 'hello\n');
    const errors: Record<string, string | undefined> = {};
    for await (const event of scanLibrary({
      roots: [path.join(dir, 'empty.zip'), path.join(dir, 'notes.zip')],
      cache: false,
      cacheDir: path.join(dir, 'cache'),
      workers: 0,
      cwd: dir,
    })) {
      if (event.type === 'record') errors[event.record.path] = event.record.error?.code;
    }
    expect(errors).toEqual({ 'empty.zip': 'truncated_archive', 'notes.zip': 'unsupported_format' });
  });
});

describe('the sidecar tree of an export', () => {
  it("matches Takeout's names across parts, by folder", () => {
    const index = createSidecarIndex();
    index.add('Takeout/Google Photos/Trip/IMG_1.jpg.supplemental-metad.json', '{"a":1}');
    index.add('./Takeout/Google Photos/Trip/IMG_2.jpg(1).json', '{"b":2}');
    expect(index.find('Takeout/Google Photos/Trip/IMG_1.jpg').takeout).toBe('{"a":1}');
    expect(index.find('Takeout/Google Photos/Trip/IMG_2(1).jpg').takeout).toBe('{"b":2}');
    expect(index.find('Takeout/Google Photos/Other/IMG_1.jpg')).toEqual({ takeout: null, xmp: null, print: '' });
  });
});

describe('scanLibrary over archives', () => {
  /** scanLibrary over fixture archives, read in this thread without the cache. */
  const scanFixtures = (names: string[], options: Partial<Parameters<typeof scanLibrary>[0]> = {}) =>
    scanLibrary({
      roots: names.map((name) => path.join(ARCHIVES, name)),
      cache: false,
      cacheDir: path.join(dir, 'cache'),
      workers: 0,
      cwd: ARCHIVES,
      ...options,
    });

  it('reads an archive named inside a folder also given, once, with or without --archives', async () => {
    fs.copyFileSync(path.join(ARCHIVES, 'zip64.zip'), path.join(dir, 'zip64.zip'));
    for (const archives of [false, true]) {
      const paths: string[] = [];
      for await (const event of scanLibrary({
        roots: [dir, path.join(dir, 'zip64.zip')],
        archives,
        cache: false,
        cacheDir: path.join(dir, 'cache'),
        workers: 0,
        cwd: dir,
      })) {
        if (event.type === 'record') paths.push(event.record.path);
        expect(event.type === 'skipped' && event.reason === 'archive' ? event : null).toBeNull();
      }
      expect(paths.sort()).toEqual(['zip64.zip!/travel/india-thar.jpg', 'zip64.zip!/travel/patagonia.jpg']);
    }
  });

  it('gives a zip export a final total from its central directory before any member is read', async () => {
    const totals: [number, boolean][] = [];
    const records: ScanRecord[] = [];
    for await (const event of scanLibrary({
      roots: [path.join(ARCHIVES, 'takeout-001.zip'), path.join(ARCHIVES, 'takeout-002.zip')],
      cache: false,
      cacheDir: path.join(dir, 'cache'),
      workers: 0,
      cwd: ARCHIVES,
      onListed: (files, final) => totals.push([files, final]),
    })) {
      if (event.type === 'record') records.push(event.record);
    }
    expect(totals.at(-1)).toEqual([records.length, true]);
    expect(records.length).toBe(14);
    expect(
      records.every((record) => record.archive?.startsWith(ARCHIVES) && record.path.startsWith('takeout-00')),
    ).toBe(true);
  });

  it("reads each zip's central directory once per run: the progress count and both passes share it", async () => {
    const opened = vi.spyOn(yauzl, 'fromRandomAccessReaderPromise');
    try {
      const totals: [number, boolean][] = [];
      let records = 0;
      const roots = [path.join(ARCHIVES, 'takeout-001.zip'), path.join(ARCHIVES, 'takeout-002.zip')];
      for await (const event of scanLibrary({
        roots,
        cache: false,
        cacheDir: path.join(dir, 'cache'),
        workers: 0,
        cwd: ARCHIVES,
        onListed: (files, final) => totals.push([files, final]),
      }))
        if (event.type === 'record') records += 1;
      expect(records).toBe(14);
      expect(totals.at(-1)).toEqual([14, true]);
      expect(opened).toHaveBeenCalledTimes(roots.length); // one listing per zip
    } finally {
      opened.mockRestore();
    }
  });

  it("counts an iCloud export by the scan's own rules: deleted rows out, and open while a nested zip is unread", async () => {
    const totals: [number, boolean][] = [];
    const records: ScanRecord[] = [];
    for await (const event of scanFixtures(ICLOUD_PARTS, { onListed: (files, final) => totals.push([files, final]) }))
      if (event.type === 'record') records.push(event.record);
    const outside = records.filter((record) => record.path.split('!/').length === 2);
    // IMG_0103.JPG is a deleted row of Photo Details.csv, IMG_0199.JPG sits in Recently Deleted.
    expect(outside.map((record) => path.basename(record.path)).sort()).toEqual([
      'IMG_0101.JPG',
      'IMG_0102.JPG',
      'IMG_0104.JPG',
    ]);
    expect(totals.at(-1)).toEqual([3, false]);
    expect(records.length).toBeGreaterThan(3); // the nested zip's members came after
  });

  it("gives progress in bytes from the start: the zips' media members, a .tgz's file size", async () => {
    const zips = [path.join(ARCHIVES, 'takeout-001.zip'), path.join(ARCHIVES, 'takeout-002.zip')];
    const tgz = path.join(ARCHIVES, 'takeout-002.tgz');
    const seen: [number, number][] = [];
    let zipMembers = 0;
    for await (const event of scanLibrary({
      roots: [...zips, tgz],
      cache: false,
      cacheDir: path.join(dir, 'cache'),
      workers: 0,
      cwd: ARCHIVES,
      onBytes: ({ done, total }) => seen.push([done, total]),
    }))
      if (event.type === 'record' && event.record.archive?.endsWith('.zip')) zipMembers += event.record.size;
    const total = zipMembers + fs.statSync(tgz).size;
    expect(seen[0]).toEqual([0, total]); // before any member is read
    expect(seen.at(-1)).toEqual([total, total]);
    expect(seen.every(([done], i) => i === 0 || done >= seen[i - 1]![0])).toBe(true);
  });

  it('counts a zip inside a zip in the byte total, and never reports more done than total', async () => {
    const seen: { done: number; total: number }[] = [];
    let read = 0;
    for await (const event of scanFixtures(ICLOUD_PARTS, { onBytes: (bytes) => seen.push(bytes) }))
      if (event.type === 'record') read += event.record.size;
    const nested = (await list(centralDirectory(path.join(ARCHIVES, ICLOUD_PARTS[1]!)))).names;
    expect(nested).toContain('iCloud Shared Albums.zip');
    // Before any member: the media outside (3 photos) plus the nested zip's own bytes.
    expect(seen[0]!.total).toBeGreaterThan(1414);
    expect(seen.every((bytes) => bytes.done <= bytes.total)).toBe(true);
    expect(seen.at(-1)!.done).toBe(read);
  });

  it('a re-scan reports the bytes served from the cache apart (done, but not read)', async () => {
    const roots = [path.join(ARCHIVES, 'takeout-001.zip')];
    const run = async (): Promise<{ done: number; total: number; cached: number }> => {
      let last = { done: 0, total: 0, cached: 0 };
      for await (const event of scanLibrary({
        roots,
        cacheDir: path.join(dir, 'cache'),
        workers: 0,
        cwd: ARCHIVES,
        onBytes: (bytes) => (last = bytes),
      }))
        void event;
      return last;
    };
    const first = await run();
    expect(first.cached).toBe(0);
    const second = await run();
    expect(second).toEqual({ done: first.done, total: first.total, cached: first.done });
  });

  it('counts a zip whose central directory breaks part-way once: its members recovered from the local headers', async () => {
    const whole = fs.readFileSync(path.join(ARCHIVES, 'takeout-001.zip'));
    const broken = Buffer.from(whole);
    // The last member's central record is no longer one: the listing fails after the others.
    broken.writeUInt32LE(0, findMember(broken, 'Recently Deleted/IMG_DEL.jpg').central);
    const file = path.join(dir, 'takeout-001.zip');
    fs.writeFileSync(file, broken);
    const intact = await openArchives([archiveRootOf(path.join(ARCHIVES, 'takeout-001.zip'))!], createSourceRun());
    await intact.prepare();
    const recovered = await openArchives([archiveRootOf(file)!], createSourceRun());
    await recovered.prepare();
    expect(intact.totals().files).toBeGreaterThan(0);
    expect(recovered.totals()).toEqual(intact.totals());
  });

  it('counts a zip whose listing is not kept (past the held entries) as its first pass streamed it', async () => {
    const archives = ['takeout-001.zip', 'takeout-002.zip'].map((name) => archiveRootOf(path.join(ARCHIVES, name))!);
    const kept = await openArchives(archives, createSourceRun());
    await kept.prepare();
    const dropped = await openArchives(archives, createSourceRun({ heldEntries: 3 }));
    await dropped.prepare();
    expect(kept.totals()).toMatchObject({ files: 14, final: true });
    expect(dropped.totals()).toEqual(kept.totals());
    // Listed again for the member pass: every member still comes.
    const members = async (walk: typeof kept): Promise<string[]> => {
      const names: string[] = [];
      for await (const batch of walk.batches())
        for (const event of batch) if (event.type === 'file') names.push(event.absPath);
      return names.sort();
    };
    expect(await members(dropped)).toEqual(await members(kept));
  });

  it("gives no byte progress when a folder shares the run (a folder's bytes are not listed)", async () => {
    let calls = 0;
    for await (const event of scanLibrary({
      roots: [path.join(ARCHIVES, 'takeout-001.zip'), path.join(dir)],
      cache: false,
      cacheDir: path.join(dir, 'cache'),
      workers: 0,
      cwd: ARCHIVES,
      onBytes: () => (calls += 1),
    }))
      void event;
    expect(calls).toBe(0);
  });

  it('a tar member read before its JSON (in the next part) is held and gets it at the end of the run', async () => {
    const records: ScanRecord[] = [];
    for await (const event of scanLibrary({
      roots: ['takeout-001.tgz', 'takeout-002.tgz'].map((name) => path.join(ARCHIVES, name)),
      cache: false,
      cacheDir: path.join(dir, 'cache'),
      workers: 0,
      cwd: ARCHIVES,
    }))
      if (event.type === 'record') records.push(event.record);
    const crossPart = records.filter(
      (record) =>
        record.absPath.includes('takeout-001.tgz!/') &&
        record.absPath.includes('Photos from 2022') &&
        record.source?.taken_at === 'takeout',
    );
    expect(crossPart.length).toBeGreaterThanOrEqual(6);
  });

  it('an XMP right after its photo is applied at a batch boundary too, whichever member ends the batch', async () => {
    const library = fileURLToPath(new URL('../../../fixtures/library/events/london/', import.meta.url));
    const photo = fs.readFileSync(path.join(library, 'DSC_3003.jpg'));
    const xmp = fs.readFileSync(path.join(library, 'DSC_3003.jpg.xmp'));
    const tar = (await import('tar-stream')).default;
    for (const lead of [0, 1]) {
      // With a lone sidecar first or not, the batch (counted in lines) ends on a photo in one of the two.
      const pack = tar.pack();
      if (lead === 1) pack.entry({ name: 'other/alone.xmp' }, xmp);
      for (let i = 0; i < 100; i++) {
        pack.entry({ name: `trip/IMG_${i}.jpg` }, photo);
        pack.entry({ name: `trip/IMG_${i}.jpg.xmp` }, xmp);
      }
      pack.finalize();
      const file = path.join(dir, `late-${lead}.tar`);
      const chunks: Buffer[] = [];
      for await (const chunk of pack) chunks.push(chunk as Buffer);
      fs.writeFileSync(file, Buffer.concat(chunks));
      const records: ScanRecord[] = [];
      for await (const event of scanLibrary({
        roots: [file],
        cache: false,
        cacheDir: path.join(dir, 'cache'),
        workers: 0,
        cwd: dir,
      }))
        if (event.type === 'record') records.push(event.record);
      expect(records).toHaveLength(100);
      expect(records.filter((record) => record.source?.coordinates !== 'xmp').map((record) => record.path)).toEqual([]);
    }
  });

  it('a tgz total stays open until the stream is read', async () => {
    const totals: [number, boolean][] = [];
    let done = -1;
    for await (const event of scanLibrary({
      roots: [path.join(ARCHIVES, 'takeout-001.tgz')],
      cache: false,
      cacheDir: path.join(dir, 'cache'),
      workers: 0,
      cwd: dir,
      onListed: (files, final) => totals.push([files, final]),
      onWalkDone: (files) => (done = files),
    }))
      void event;
    expect(totals.every(([, final]) => !final)).toBe(true);
    expect(done).toBe(12);
  });
});

describe('the first pass over a zip (its sidecars)', () => {
  it('stops at the next entry once the scan is stopped (Ctrl-C during a large listing)', async () => {
    const stop = new AbortController();
    const real = createSidecarIndex();
    const added: string[] = [];
    // The stop comes while the first sidecar is being taken in.
    const index = {
      add: (member: string, text: string) => {
        added.push(member);
        real.add(member, text);
        stop.abort();
      },
      find: (member: string) => real.find(member),
      forget: real.forget,
      release: real.release,
      unclaimed: real.unclaimed,
      get size() {
        return real.size;
      },
    };
    const walk = await openArchives(
      [archiveRootOf(path.join(ARCHIVES, 'takeout-002.zip'))!],
      createSourceRun({ signal: stop.signal, index }),
    );
    await walk.prepare();
    expect(added).toHaveLength(1);
  });
});

describe('the scan cache and archive members', () => {
  it('keeps zip members (found again by their central directory) and writes nothing for tar members', async () => {
    const cacheDir = path.join(dir, 'cache');
    const scan = async (root: string) => {
      for await (const _event of scanLibrary({ roots: [root], cacheDir, workers: 0, cwd: dir })) {
        // drained
      }
    };
    const rows = (): number => {
      const db = new Database(path.join(cacheDir, 'scan-cache.sqlite3'), { readonly: true });
      try {
        return (db.prepare('SELECT count(*) AS n FROM files').get() as { n: number }).n;
      } finally {
        db.close();
      }
    };
    await scan(path.join(ARCHIVES, 'takeout-002.tgz'));
    expect(rows()).toBe(0);
    await scan(path.join(ARCHIVES, 'takeout-002.zip'));
    expect(rows()).toBeGreaterThan(0);
  });
});
