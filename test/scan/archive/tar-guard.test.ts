import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { gunzipSync } from 'node:zlib';
import tar from 'tar-stream';
import { describe, expect, it } from 'vitest';
import { ArchiveLimitError, createTarGuard, type DroppedMember } from '../../../src/scan/archive/tar-guard.js';
import {
  gnuLongNameBomb,
  globalPaxBomb,
  paxBomb,
  PHOTO,
  tarHeader,
  tarStream,
  type TarPart,
} from '../../helpers/hostile-corpus.js';

const FIXTURE_TGZ = fileURLToPath(new URL('../../../fixtures/archives/takeout-001.tgz', import.meta.url));

/** What tar-stream reads of `input` behind the guard: the entries' names and sizes, and what was dropped. */
async function readGuarded(
  input: AsyncIterable<Buffer> | Buffer,
  options: { maxHeaderBytes?: number; budgetBytes?: number } = {},
): Promise<{ entries: { name: string; bytes: number }[]; dropped: DroppedMember[]; error: unknown }> {
  const dropped: DroppedMember[] = [];
  const guard = createTarGuard({ ...options, onDropped: (member) => dropped.push(member) });
  const extract = tar.extract();
  const entries: { name: string; bytes: number }[] = [];
  const done = pipeline(Readable.from(Buffer.isBuffer(input) ? [input] : input), guard, extract).catch((e) => e);
  let error: unknown = null;
  try {
    for await (const entry of extract) {
      let bytes = 0;
      for await (const part of entry) bytes += (part as Buffer).length;
      entries.push({ name: entry.header.name, bytes });
    }
  } catch (caught) {
    error = caught;
  }
  error ??= (await done) ?? null;
  return { entries, dropped, error };
}

const names = (parts: TarPart[]): string[] => parts.filter((p) => p.type === undefined).map((p) => p.name);

async function bytesOf(stream: AsyncIterable<Buffer>): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const part of stream) parts.push(part);
  return Buffer.concat(parts);
}

describe('the tar guard', () => {
  it('passes an ordinary tar on byte for byte', async () => {
    const plain = gunzipSync(readFileSync(FIXTURE_TGZ));
    const guard = createTarGuard({ onDropped: () => expect.unreachable() });
    // In small odd chunks: headers cut across writes.
    const chunks = Array.from({ length: Math.ceil(plain.length / 777) }, (_, i) =>
      plain.subarray(i * 777, (i + 1) * 777),
    );
    const out = await bytesOf(Readable.from(chunks).pipe(guard));
    expect(out.equals(plain)).toBe(true);
  });

  it('drops a PAX header past the cap with its member, reports it, and reads the members after it', async () => {
    const parts = paxBomb(1024 * 1024);
    const { entries, dropped, error } = await readGuarded(tarStream(parts), { maxHeaderBytes: 64 * 1024 });
    expect(error).toBeNull();
    expect(entries.map((e) => e.name)).toEqual(names(parts).filter((n) => n !== 'Takeout/bomb.jpg'));
    expect(entries.every((e) => e.bytes === PHOTO.length)).toBe(true);
    expect(dropped).toEqual([
      {
        name: 'Takeout/bomb.jpg',
        message: expect.stringMatching(/PAX extended header declares 1048576 bytes, more than the 65536-byte limit/),
      },
    ]);
  });

  it('does the same for a GNU long name, and for a PAX global header (which belongs to no member)', async () => {
    const long = await readGuarded(tarStream(gnuLongNameBomb(200_000)));
    expect(long.entries.map((e) => e.name)).toEqual(['long/before/IMG_1000.jpg', 'long/after/IMG_1000.jpg']);
    expect(long.dropped).toEqual([{ name: 'long/bomb.jpg', message: expect.stringContaining('GNU long name') }]);
    const global = await readGuarded(tarStream(globalPaxBomb(200_000)));
    expect(global.entries.map((e) => e.name)).toEqual(['global/IMG_1000.jpg', 'global/IMG_1001.jpg']);
    expect(global.dropped).toEqual([{ name: null, message: expect.stringContaining('PAX global header') }]);
  });

  it('keeps extended headers under the cap, and frames a member by the size its PAX header gives', async () => {
    const longName = `deep/${'d'.repeat(300)}/IMG.jpg`;
    const record = (key: string, value: string): string => {
      const body = ` ${key}=${value}\n`;
      let length = body.length + 1;
      while (`${length}${body}`.length !== length) length += 1;
      return `${length}${body}`;
    };
    const pax = Buffer.from(record('path', longName) + record('size', String(PHOTO.length)));
    // The ustar size field says 0: only the PAX size frames the member (as for members past 8 GiB).
    const member = tarHeader('ignored.jpg', 0);
    const stream = Buffer.concat([
      tarHeader('PaxHeader', pax.length, 'x'),
      pax,
      Buffer.alloc(512 - (pax.length % 512)),
      member,
      PHOTO,
      Buffer.alloc((512 - (PHOTO.length % 512)) % 512),
      await bytesOf(tarStream([{ name: 'after.jpg', data: PHOTO }])),
    ]);
    const { entries, dropped, error } = await readGuarded(stream);
    expect(error).toBeNull();
    expect(dropped).toEqual([]);
    expect(entries).toEqual([
      { name: longName, bytes: PHOTO.length },
      { name: 'after.jpg', bytes: PHOTO.length },
    ]);
  });

  it('ends the stream past its budget of bytes', async () => {
    const parts: TarPart[] = [{ name: 'zeros.mov', fill: 8 * 1024 * 1024, fillByte: 0 }];
    const { error } = await readGuarded(tarStream(parts), { budgetBytes: 1024 * 1024 });
    expect(error).toBeInstanceOf(ArchiveLimitError);
  });

  it('skips an extended header larger than the budget, and reads the members after it', async () => {
    // Skipped bytes are only inflated and let go: they count against four times the budget.
    const { error, entries, dropped } = await readGuarded(tarStream(paxBomb(3 * 1024 * 1024)), {
      budgetBytes: 1024 * 1024,
    });
    expect(error).toBeNull();
    expect(entries.map((e) => e.name)).toEqual([
      'Takeout/before/IMG_1000.jpg',
      'Takeout/before/IMG_1001.jpg',
      'Takeout/after/IMG_1000.jpg',
      'Takeout/after/IMG_1001.jpg',
    ]);
    expect(dropped.map((d) => d.name)).toEqual(['Takeout/bomb.jpg']);
  });

  it('says so when the skipped bytes end the stream inside an extended header', async () => {
    const { error, entries, dropped } = await readGuarded(tarStream(paxBomb(8 * 1024 * 1024)), {
      budgetBytes: 1024 * 1024,
    });
    expect(entries.map((e) => e.name)).toEqual(['Takeout/before/IMG_1000.jpg', 'Takeout/before/IMG_1001.jpg']);
    expect(dropped).toEqual([]);
    expect(String(error)).toMatch(
      /stopped inside a PAX extended header that declares 8388608 bytes, more than the 65536/,
    );
  });

  it('leaves a stream that is not a tar to tar-stream, which says so', async () => {
    const { error, entries } = await readGuarded(Buffer.alloc(4096, 0x41));
    expect(entries).toEqual([]);
    expect(String(error)).toMatch(/Invalid tar header/);
  });
});
