import { describe, expect, it } from 'vitest';
import { groupMisses, readGroups, type Grouped, type LookedUp } from '../../src/scan/stages.js';
import type { FileResult } from '../../src/scan/read-file.js';
import type { ScanEvent } from '../../src/scan/types.js';
import type { WalkFile } from '../../src/scan/sources/folder.js';

const file = (i: number, size = 10): WalkFile => ({
  type: 'file',
  path: `f${i}.jpg`,
  absPath: `/lib/f${i}.jpg`,
  size,
  mtimeMs: 1,
  ino: i,
  sidecarFingerprint: '',
});
const read = (f: WalkFile): FileResult => ({
  absPath: f.absPath,
  size: f.size,
  media: null,
  source: null,
  error: { code: 'corrupt_file', message: 'x' },
  cacheable: true,
});
const skip = (i: number): ScanEvent => ({ type: 'skipped', reason: 'not_media', path: `n${i}.txt` });
const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

async function* from<T>(items: T[], log?: string[]): AsyncGenerator<T> {
  try {
    for (const item of items) {
      log?.push('pulled');
      yield item;
    }
  } finally {
    log?.push('closed');
  }
}

describe('groupMisses', () => {
  it('groups misses by a growing count and by bytes, and passes events on at once', async () => {
    const looked: LookedUp[] = [
      { events: [skip(0)], misses: Array.from({ length: 30 }, (_, i) => file(i)) },
      { events: [skip(1)], misses: [file(30, 5000), file(31)] },
    ];
    const out: Grouped[] = [];
    let started = 0;
    for await (const grouped of groupMisses(from(looked), {
      maxFiles: 16,
      maxBytes: 4000,
      firstFiles: 4,
      onFirst: () => (started += 1),
    }))
      out.push(grouped);
    expect(started).toBe(1);
    expect(out.map((g) => g.group?.length ?? 0)).toEqual([4, 8, 16, 3, 1]); // the 5,000-byte file closes a group of 3
    expect(out.flatMap((g) => g.events)).toEqual([skip(0), skip(1)]);
    expect(out.flatMap((g) => g.group ?? []).map((f) => f.ino)).toEqual(Array.from({ length: 32 }, (_, i) => i));
  });
  it('closes a group at the held-bytes bound only for files whose bytes travel with the task', async () => {
    // Even inos: bytes already read (a tar member); odd: a path or a zip member's place.
    const misses = Array.from({ length: 12 }, (_, i) => file(i, 1000));
    const out: Grouped[] = [];
    for await (const grouped of groupMisses(from([{ events: [], misses }]), {
      maxFiles: 64,
      firstFiles: 64,
      maxBytes: 1_000_000,
      maxHeldBytes: 2500,
      heldBytes: (f) => (f.ino % 2 === 0 ? f.size : 0),
    }))
      out.push(grouped);
    // Three held files (3,000 bytes) close a group: every fifth file; without held files none would close.
    expect(out.map((g) => g.group?.length ?? 0)).toEqual([5, 6, 1]);
  });
});

describe('readGroups', () => {
  const finish = (f: WalkFile, result: FileResult): ScanEvent => ({
    type: 'record',
    record: {
      path: f.path,
      absPath: f.absPath,
      size: f.size,
      mtimeMs: 1,
      media: null,
      source: null,
      error: result.error,
      cached: false,
    },
  });

  it('keeps at most `limit` reads in flight and gives every record and event', async () => {
    let inFlight = 0;
    let most = 0;
    const run = async (files: WalkFile[]): Promise<FileResult[]> => {
      inFlight += 1;
      most = Math.max(most, inFlight);
      await turn();
      inFlight -= 1;
      return files.map(read);
    };
    const groups: Grouped[] = Array.from({ length: 10 }, (_, i) => ({ events: [skip(i)], group: [file(i)] }));
    const out: ScanEvent[] = [];
    for await (const events of readGroups(from(groups), {
      run,
      limit: 3,
      signal: new AbortController().signal,
      finish,
    }))
      out.push(...events);
    expect(most).toBe(3);
    expect(out.filter((e) => e.type === 'record')).toHaveLength(10);
    expect(out.filter((e) => e.type === 'skipped')).toHaveLength(10);
  });

  it('on return(): aborts the reads in flight, waits for them, and closes the upstream', async () => {
    const log: string[] = [];
    const run = (files: WalkFile[], signal: AbortSignal): Promise<FileResult[]> =>
      new Promise((resolve, reject) => {
        log.push(`run ${files[0]!.ino}`);
        if (files[0]!.ino === 0) resolve(files.map(read));
        signal.addEventListener('abort', () => {
          log.push(`aborted ${files[0]!.ino}`);
          reject(new Error('aborted'));
        });
      });
    const groups: Grouped[] = Array.from({ length: 10 }, (_, i) => ({ events: [], group: [file(i)] }));
    const stage = readGroups(from(groups, log), { run, limit: 2, signal: new AbortController().signal, finish });
    const first = await stage.next();
    expect(first.value).toHaveLength(1);
    await stage.return(undefined);
    expect(log).toContain('closed');
    expect(log.filter((l) => l === 'pulled').length).toBeLessThanOrEqual(3);
    expect(log.filter((l) => l.startsWith('aborted')).length).toBeGreaterThan(0);
  });

  it('turns a read that fails as a whole into internal_error records', async () => {
    const run = async (): Promise<FileResult[]> => {
      throw new Error('worker died');
    };
    const out: ScanEvent[] = [];
    for await (const events of readGroups(from([{ events: [], group: [file(1), file(2)] }]), {
      run,
      limit: 1,
      signal: new AbortController().signal,
      finish,
    }))
      out.push(...events);
    expect(out.map((e) => (e.type === 'record' ? e.record.error : null))).toEqual([
      { code: 'internal_error', message: 'worker died' },
      { code: 'internal_error', message: 'worker died' },
    ]);
  });
});
