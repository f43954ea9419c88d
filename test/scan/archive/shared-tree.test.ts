import * as fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createSidecarIndex } from '../../../src/scan/archive/sidecar-index.js';
import { createSidecarTree, scanLibrary, treeKey, type ScanOptions } from '../../../src/scan/scan.js';
import type { ScanRecord } from '../../../src/scan/types.js';
import { storedZip } from '../../e2e/helpers/stored-zip.js';

// A JPEG with neither capture time nor coordinates: what it gets comes from a sidecar.
const BARE = fs.readFileSync(fileURLToPath(new URL('../extract/files/bare.jpg', import.meta.url)));
const TRIP = 'Takeout/Google Photos/Trip';

/** A Takeout JSON placing a photo in Lisbon (or at `latitude`) at `seconds`. */
const takeoutJson = (title: string, seconds: number, latitude = 38.7223): Buffer =>
  Buffer.from(
    JSON.stringify({
      title,
      photoTakenTime: { timestamp: String(seconds) },
      geoData: { latitude, longitude: -9.1393, altitude: 0, latitudeSpan: 0, longitudeSpan: 0 },
    }),
  );

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'camroll-tree-'));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

async function records(options: Omit<ScanOptions, 'cacheDir'>): Promise<Map<string, ScanRecord>> {
  const found = new Map<string, ScanRecord>();
  for await (const event of scanLibrary({
    cache: false,
    cacheDir: path.join(dir, 'cache'),
    workers: 0,
    ...options,
  }))
    if (event.type === 'record') found.set(path.basename(event.record.absPath), event.record);
  return found;
}

describe("a later scan given the run's sidecar tree", () => {
  it('applies a sidecar from an archive it does not read to a member and to a named file beside', async () => {
    // Part 1 holds IMG_1.jpg; part 2 the JSONs of IMG_1.jpg and of IMG_2.jpg, which lies unpacked in a folder.
    const part1 = path.join(dir, 't1.zip');
    const part2 = path.join(dir, 't2.zip');
    fs.writeFileSync(part1, storedZip([{ name: `${TRIP}/IMG_1.jpg`, data: BARE }]));
    fs.writeFileSync(
      part2,
      storedZip([
        { name: `${TRIP}/IMG_1.jpg.json`, data: takeoutJson('IMG_1.jpg', 1_650_000_000) },
        { name: `${TRIP}/IMG_2.jpg.json`, data: takeoutJson('IMG_2.jpg', 1_650_000_600) },
      ]),
    );
    const folder = path.join(dir, 'unpacked');
    const photo = path.join(folder, TRIP, 'IMG_2.jpg');
    fs.mkdirSync(path.dirname(photo), { recursive: true });
    fs.writeFileSync(photo, BARE);
    const runRoots = [folder, part1, part2];

    // The run's first scan reads everything: the parts are one tree.
    const tree = createSidecarTree();
    const first = await records({ roots: runRoots, tree, cwd: dir });
    for (const name of ['IMG_1.jpg', 'IMG_2.jpg']) {
      expect(first.get(name)?.source?.taken_at, name).toBe('takeout');
      expect(first.get(name)?.media?.latitude, name).toBeCloseTo(38.7223, 4);
    }

    // A later scan reads part 1 and the folder's file again, not part 2.
    const again = await records({ roots: [part1, photo], tree, treeRoots: runRoots, cwd: dir });
    const member = again.get('IMG_1.jpg');
    expect(member?.archive).toBeDefined();
    expect(member?.media?.taken_at).toBe(first.get('IMG_1.jpg')?.media?.taken_at);
    expect(member?.source?.taken_at).toBe('takeout');
    expect(member?.media?.longitude).toBeCloseTo(-9.1393, 4);
    const named = again.get('IMG_2.jpg');
    expect(named?.archive).toBeUndefined();
    expect(named?.media?.taken_at).toBe(first.get('IMG_2.jpg')?.media?.taken_at);
    expect(named?.source?.taken_at).toBe('takeout');
    expect(named?.media?.latitude).toBeCloseTo(38.7223, 4);

    // Without the tree, part 1 alone has no sidecar for its photo (what the tree is for).
    const alone = await records({ roots: [part1, photo], cwd: dir });
    expect(alone.get('IMG_1.jpg')?.media?.latitude ?? null).toBeNull();
    expect(alone.get('IMG_2.jpg')?.media?.latitude ?? null).toBeNull();
  });

  it("keys a named file as the run's walk did: its path below the run's folder, or its name", () => {
    const roots = ['/data/unpacked', '/data/t1.zip'];
    expect(treeKey('/data/unpacked/Takeout/Google Photos/Trip/IMG_2.jpg', roots)).toBe(`${TRIP}/IMG_2.jpg`);
    expect(treeKey('/data/loose/IMG_3.jpg', roots)).toBe('IMG_3.jpg');
    expect(treeKey('/data/unpacked', roots)).toBe('unpacked');
  });

  it("a file's own folder's sidecar, edited since, wins over the tree's copy of an archive's", async () => {
    const part = path.join(dir, 't2.zip');
    fs.writeFileSync(
      part,
      storedZip([{ name: `${TRIP}/IMG_2.jpg.json`, data: takeoutJson('IMG_2.jpg', 1_650_000_600) }]),
    );
    const folder = path.join(dir, 'unpacked');
    const photo = path.join(folder, TRIP, 'IMG_2.jpg');
    fs.mkdirSync(path.dirname(photo), { recursive: true });
    fs.writeFileSync(photo, BARE);
    const tree = createSidecarTree();
    await records({ roots: [folder, part], tree, cwd: dir });
    // A JSON of its own appears beside it: the later scan reads it, not the archive's.
    fs.writeFileSync(`${photo}.json`, takeoutJson('IMG_2.jpg', 1_700_000_000));
    const again = await records({ roots: [photo], tree, treeRoots: [folder, part], cwd: dir });
    expect(again.get('IMG_2.jpg')?.media?.taken_at).toMatch(/^2023-11-14T22:13:20/);
  });
});

describe('a later scan reads an unchanged file as the first scan did', () => {
  /** A folder holding part 1 unpacked (IMG_1.jpg) and part 2 still zipped, with the photo's JSON. */
  function exportWithZipInside(): { folder: string; photo: string } {
    const folder = path.join(dir, 'takeout');
    const photo = path.join(folder, TRIP, 'IMG_1.jpg');
    fs.mkdirSync(path.dirname(photo), { recursive: true });
    fs.writeFileSync(photo, BARE);
    fs.writeFileSync(
      path.join(folder, 'takeout-002.zip'),
      storedZip([{ name: `${TRIP}/IMG_1.jpg.json`, data: takeoutJson('IMG_1.jpg', 1_650_000_000) }]),
    );
    return { folder, photo };
  }

  it('with --archives and folder roots only, a folder file gets no sidecar from a found archive, later either', async () => {
    const { folder, photo } = exportWithZipInside();
    const tree = createSidecarTree();
    const first = await records({ roots: [folder], archives: true, tree, cwd: dir });
    expect(first.get('IMG_1.jpg')?.media?.taken_at ?? null).toBeNull();
    expect(tree.index.size).toBeGreaterThan(0); // the found part's JSON is in the tree

    const again = await records({ roots: [photo], tree, treeRoots: [folder], cwd: dir });
    expect(again.get('IMG_1.jpg')?.media?.id).toBe(first.get('IMG_1.jpg')?.media?.id);
    expect(again.get('IMG_1.jpg')?.media?.taken_at ?? null).toBeNull();
    expect(again.get('IMG_1.jpg')?.media?.latitude ?? null).toBeNull();
  });

  it("an archive read again does not replace a folder's sidecar of the same name", async () => {
    const folder = path.join(dir, 'unpacked');
    fs.mkdirSync(path.join(folder, TRIP), { recursive: true });
    fs.writeFileSync(path.join(folder, TRIP, 'IMG_2.jpg.json'), takeoutJson('IMG_2.jpg', 1_700_000_000, 40));
    const part = path.join(dir, 't1.zip');
    fs.writeFileSync(
      part,
      storedZip([
        { name: `${TRIP}/IMG_2.jpg`, data: BARE },
        { name: `${TRIP}/IMG_2.jpg.json`, data: takeoutJson('IMG_2.jpg', 1_650_000_000) },
      ]),
    );
    const tree = createSidecarTree();
    const first = await records({ roots: [folder, part], tree, cwd: dir });
    expect(first.get('IMG_2.jpg')?.media?.latitude).toBe(40);

    // The part downloaded again, the same bytes: its member reads as in the first scan.
    const again = await records({ roots: [part], tree, treeRoots: [folder, part], cwd: dir });
    expect(again.get('IMG_2.jpg')?.media?.taken_at).toBe(first.get('IMG_2.jpg')?.media?.taken_at);
    expect(again.get('IMG_2.jpg')?.media?.latitude).toBe(40);
  });

  it("a folder file's own sidecar wins over an archive's the name rules rank first", async () => {
    const folder = path.join(dir, 'unpacked');
    const photo = path.join(folder, TRIP, 'IMG_5.jpg');
    fs.mkdirSync(path.dirname(photo), { recursive: true });
    fs.writeFileSync(photo, BARE);
    fs.writeFileSync(`${photo}.json`, takeoutJson('IMG_5.jpg', 1_700_000_000, 10));
    const part = path.join(dir, 't2.zip');
    const supplemental = takeoutJson('IMG_5.jpg', 1_650_000_000, 50);
    fs.writeFileSync(part, storedZip([{ name: `${TRIP}/IMG_5.jpg.supplemental-metadata.json`, data: supplemental }]));
    const tree = createSidecarTree();
    const first = await records({ roots: [folder, part], tree, cwd: dir });
    expect(first.get('IMG_5.jpg')?.media?.latitude).toBe(10);
    // As a plain folder scan reads it.
    const plain = await records({ roots: [folder], cwd: dir });
    expect(first.get('IMG_5.jpg')?.media).toEqual(plain.get('IMG_5.jpg')?.media);

    // Its own JSON edited: a later scan reads the edit.
    fs.writeFileSync(`${photo}.json`, takeoutJson('IMG_5.jpg', 1_700_000_000, 20));
    const again = await records({ roots: [photo], tree, treeRoots: [folder, part], cwd: dir });
    expect(again.get('IMG_5.jpg')?.media?.latitude).toBe(20);
  });

  it('a sidecar deleted since the first scan is not applied later, as a fresh run would not', async () => {
    const folder = path.join(dir, 'unpacked');
    const photo = path.join(folder, TRIP, 'IMG_3.jpg');
    fs.mkdirSync(path.dirname(photo), { recursive: true });
    fs.writeFileSync(photo, BARE);
    fs.writeFileSync(`${photo}.json`, takeoutJson('IMG_3.jpg', 1_650_000_000));
    const part = path.join(dir, 't2.zip');
    fs.writeFileSync(part, storedZip([{ name: `${TRIP}/IMG_4.jpg.json`, data: takeoutJson('IMG_4.jpg', 1) }]));
    const tree = createSidecarTree();
    const first = await records({ roots: [folder, part], tree, cwd: dir });
    expect(first.get('IMG_3.jpg')?.source?.taken_at).toBe('takeout');

    fs.rmSync(`${photo}.json`);
    const again = await records({ roots: [photo], tree, treeRoots: [folder, part], cwd: dir });
    const fresh = await records({ roots: [folder, part], cwd: dir });
    expect(fresh.get('IMG_3.jpg')?.media?.taken_at ?? null).toBeNull();
    expect(again.get('IMG_3.jpg')?.media).toEqual(fresh.get('IMG_3.jpg')?.media);
    expect(again.get('IMG_3.jpg')?.source).toEqual(fresh.get('IMG_3.jpg')?.source);
  });

  it("the tree keeps an archive's copy under a folder's: a deleted folder sidecar gives way to it", () => {
    const index = createSidecarIndex();
    index.add(`${TRIP}/IMG_6.jpg.json`, 'from the folder', '/data/unpacked/Trip');
    index.add(`${TRIP}/IMG_6.jpg.json`, 'from the part'); // read again: the folder's stays
    expect(index.find(`${TRIP}/IMG_6.jpg`).takeout).toBe('from the folder');
    index.forget(TRIP, '/data/unpacked/Trip', new Map());
    expect(index.find(`${TRIP}/IMG_6.jpg`).takeout).toBe('from the part');
    index.add(`${TRIP}/IMG_6.jpg.json`, 'the part again'); // between archives the last read wins
    expect(index.find(`${TRIP}/IMG_6.jpg`).takeout).toBe('the part again');
    expect(index.size).toBe(1);
  });

  it("once released, the folders' sidecars are read from disk again: the same when unchanged, as they are now when not", async () => {
    const folder = path.join(dir, 'unpacked');
    const json = path.join(folder, TRIP, 'IMG_2.jpg.json');
    fs.mkdirSync(path.dirname(json), { recursive: true });
    fs.writeFileSync(json, takeoutJson('IMG_2.jpg', 1_700_000_000, 40));
    const part = path.join(dir, 't1.zip');
    fs.writeFileSync(part, storedZip([{ name: `${TRIP}/IMG_2.jpg`, data: BARE }]));
    const tree = createSidecarTree();
    const first = await records({ roots: [folder, part], tree, cwd: dir });
    expect(first.get('IMG_2.jpg')?.media?.latitude).toBe(40);
    const before = tree.index.find(`${TRIP}/IMG_2.jpg`);

    tree.index.release();
    expect(tree.index.find(`${TRIP}/IMG_2.jpg`)).toEqual(before);
    const again = await records({ roots: [part], tree, treeRoots: [folder, part], cwd: dir });
    expect(again.get('IMG_2.jpg')?.media).toEqual(first.get('IMG_2.jpg')?.media);

    // Edited since: read as it is now, as a fresh run would.
    fs.writeFileSync(json, takeoutJson('IMG_2.jpg', 1_700_000_000, 41));
    const edited = await records({ roots: [part], tree, treeRoots: [folder, part], cwd: dir });
    expect(edited.get('IMG_2.jpg')?.media?.latitude).toBe(41);
    expect((await records({ roots: [folder, part], cwd: dir })).get('IMG_2.jpg')?.media?.latitude).toBe(41);
  });
});
