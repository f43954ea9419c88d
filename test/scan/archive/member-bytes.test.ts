import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { collectEnds, inflateFromBuffer, readMemberBytes } from '../../../src/scan/archive/member-bytes.js';
import { centralDirectory, type ZipEntry } from '../../../src/scan/archive/zip-list.js';
import { scanLibrary } from '../../../src/scan/scan.js';
import { declareSize } from '../helpers/zip-surgery.js';

const ARCHIVES = fileURLToPath(new URL('../../../fixtures/archives/', import.meta.url));
const JSON_NAME = 'takeout/Takeout/Google Photos/Photos from 2022/IMG_4001.jpg.json'; // stored
const CSV_NAME = 'iCloud Photos/Photo Details.csv'; // deflated
let dir: string;

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'camroll-bytes-'));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

async function entryOf(zip: Buffer, name: string): Promise<ZipEntry> {
  for await (const entry of centralDirectory(zip)) if (entry.name === name) return entry;
  throw new Error(`no ${name}`);
}

/** The member read both ways the main thread reads one: from the file, and from the zip in memory. */
async function readBoth(zip: Buffer, name: string): Promise<[string | null, string | null]> {
  const file = path.join(dir, 'part.zip');
  fs.writeFileSync(file, zip);
  const entry = await entryOf(zip, name);
  const handle = await fsp.open(file, 'r');
  try {
    const fromFile = await readMemberBytes(handle, entry, 1024 * 1024);
    return [fromFile?.toString('utf8') ?? null, inflateFromBuffer(zip, entry, 1024 * 1024)?.toString('utf8') ?? null];
  } finally {
    await handle.close();
  }
}

describe('a sidecar read on the main thread', () => {
  it.each([
    ['stored', 'takeout-002.zip', JSON_NAME],
    ['deflated', 'iCloud Photos Part 1 of 2.zip', CSV_NAME],
  ])('a %s one is read whole, and refused when it is not the size its headers declare', async (_m, part, name) => {
    const zip = fs.readFileSync(path.join(ARCHIVES, part));
    const [whole, wholeInMemory] = await readBoth(zip, name);
    const size = (await entryOf(zip, name)).size;
    expect(Buffer.byteLength(whole ?? '')).toBe(size);
    expect(wholeInMemory).toBe(whole);
    for (const declared of [size - 1, size + 1])
      expect(await readBoth(declareSize(zip, name, declared), name)).toEqual([null, null]);
  });

  it("a Takeout JSON whose size is not the declared one gives its photo nothing; the part's other JSONs still apply", async () => {
    const part2 = path.join(dir, 'takeout-002.zip');
    fs.writeFileSync(part2, declareSize(fs.readFileSync(path.join(ARCHIVES, 'takeout-002.zip')), JSON_NAME, 700));
    const sources = new Map<string, string | null | undefined>();
    for await (const event of scanLibrary({
      roots: [path.join(ARCHIVES, 'takeout-001.zip'), part2],
      cache: false,
      cacheDir: path.join(dir, 'cache'),
      workers: 0,
      cwd: dir,
    })) {
      if (event.type === 'record') sources.set(path.basename(event.record.absPath), event.record.source?.taken_at);
    }
    expect(sources.get('IMG_4001.jpg')).not.toBe('takeout');
    expect(sources.get('IMG_4003.jpg')).toBe('takeout');
  });
});

describe('a tar member too large to hold', () => {
  /** The member in chunks of the given sizes, counting how many were taken. */
  function chunks(data: Buffer, sizes: number[]): { stream: AsyncGenerator<Buffer>; taken: () => number } {
    let taken = 0;
    async function* stream(): AsyncGenerator<Buffer> {
      for (let at = 0, i = 0; at < data.length; i++) {
        const size = sizes[i % sizes.length]!;
        taken += 1;
        yield data.subarray(at, at + size);
        at += size;
      }
    }
    return { stream: stream(), taken: () => taken };
  }
  const data = Buffer.from(Array.from({ length: 10_000 }, (_, i) => (i * 7919) % 251));

  it.each([
    ['chunks that straddle both ends', [333, 1, 4096]],
    ['one chunk', [10_000]],
    ['single bytes', [1]],
  ])('keeps exactly its first and last bytes and hashes all of them, in %s', async (_name, sizes) => {
    const ends = await collectEnds(chunks(data, sizes).stream, { size: data.length, headBytes: 1000, tailBytes: 2500 });
    expect(ends).toEqual({
      head: new Uint8Array(data.subarray(0, 1000)),
      tail: new Uint8Array(data.subarray(7500)),
      id: `sha256:${createHash('sha256').update(data).digest('hex')}`,
    });
  });

  it('ends that would overlap are kept once; a stream shorter than declared gives nothing', async () => {
    const ends = await collectEnds(chunks(data, [700]).stream, { size: data.length, headBytes: 6000, tailBytes: 6000 });
    expect(Buffer.concat([ends!.head, ends!.tail])).toEqual(data);
    const short = await collectEnds(chunks(data, [700]).stream, {
      size: data.length + 1,
      headBytes: 10,
      tailBytes: 10,
    });
    expect(short).toBeNull();
  });

  it('stops at the next chunk once the scan is stopped', async () => {
    const stop = new AbortController();
    const source = chunks(data, [100]);
    async function* stopping(): AsyncGenerator<Buffer> {
      for await (const chunk of source.stream) {
        yield chunk;
        stop.abort();
      }
    }
    const ends = await collectEnds(stopping(), {
      size: data.length,
      headBytes: 10,
      tailBytes: 10,
      signal: stop.signal,
    });
    expect(ends).toBeNull();
    expect(source.taken()).toBe(2);
  });
});
