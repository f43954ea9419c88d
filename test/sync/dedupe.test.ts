import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { IngestResponse, MediaMetadata } from '../../src/contract/index.js';
import { createCopyChooser, type JournalAnswer } from '../../src/sync/dedupe.js';
import { runDrySync } from '../../src/sync/dry-run.js';
import { journalFileName, openJournal, type Journal, type PassKind } from '../../src/sync/journal.js';
import { openJournalReader } from '../../src/sync/journal-reader.js';
import { runPipeline, type SyncInput } from '../../src/sync/pipeline.js';
import { acceptingClient } from '../helpers/sync-client.js';

const ID = (n: number): string => `sha256:${n.toString(16).padStart(64, '0')}`;

/** One file: its path, and the metadata the scanner gives for it (the file name differs per copy). */
interface File {
  path: string;
  id: string;
}

const scanned = (file: File): SyncInput => ({
  type: 'record',
  record: {
    path: file.path,
    media: {
      id: file.id,
      taken_at: '2024-07-13T00:30:00.000Z',
      latitude: 40.75,
      longitude: -73.99,
      media_type: 'photo',
      filename: file.path.split('/').at(-1) ?? file.path,
      duration_seconds: null,
      device_make: null,
      device_model: null,
      device_lens_model: null,
    },
    error: null,
  },
});

/** The scanner's events in exactly this order, one file a step. */
async function* inOrder(files: readonly File[]): AsyncGenerator<SyncInput[]> {
  for (const file of files) yield [scanned(file)];
}

/** A service that accepts everything and remembers what it was sent. */
function recordingService() {
  const sent: MediaMetadata[] = [];
  const client = acceptingClient({ onIngest: (batch) => sent.push(...batch) });
  const send = (media: MediaMetadata[]): Promise<IngestResponse> => client.ingest('user', media);
  return { sent, send };
}

const permutations = <T>(items: readonly T[]): T[][] =>
  items.length <= 1
    ? [items.slice()]
    : items.flatMap((item, i) =>
        permutations([...items.slice(0, i), ...items.slice(i + 1)]).map((rest) => [item, ...rest]),
      );

describe('the same bytes at several paths, synced again unchanged', () => {
  let dir: string;
  let journal: Journal;
  const key = { baseUrl: 'http://x/v1', partnerId: 'p', userId: 'u' };
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'camroll-dedupe-'));
    journal = openJournal({ dir, key });
  });
  afterEach(() => {
    journal.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** One complete pass over `files` in that order; what was sent (file names) and the counts. */
  const pass = async (files: readonly File[], options: { full?: boolean; kind?: PassKind } = {}) => {
    const svc = recordingService();
    const passId = journal.beginPass(options.kind ?? 'incremental');
    const { summary } = await runPipeline({
      input: inOrder(files),
      journal,
      passId,
      send: svc.send,
      batchSize: 2,
      concurrency: 2,
      full: options.full ?? false,
      signal: new AbortController().signal,
    });
    journal.finishPass(passId, 'complete');
    return { sent: svc.sent.map((m) => m.filename), counts: summary.counts };
  };

  const a = { path: 'a/one.jpg', id: ID(1) };
  const b = { path: 'b/two.jpg', id: ID(1) };
  const other = { path: 'c/other.jpg', id: ID(2) };

  it('sends nothing when the copy sent last time comes second this time', async () => {
    expect((await pass([a, b, other])).sent).toEqual(['one.jpg', 'other.jpg']);
    const again = await pass([b, a, other]);
    expect(again.sent).toEqual([]);
    expect(again.counts).toMatchObject({ media: 3, duplicates: 1, skipped_already_sent: 2, sent: 0 });
  });

  it('sends nothing in any order of three copies, and the counts are the same in every order', async () => {
    const c = { path: 'z/three.jpg', id: ID(1) };
    expect((await pass([b, c, a, other])).sent).toEqual(['two.jpg', 'other.jpg']);
    for (const order of permutations([a, b, c, other])) {
      const again = await pass(order);
      expect(again.sent, order.map((f) => f.path).join(' ')).toEqual([]);
      expect(again.counts).toMatchObject({ duplicates: 2, skipped_already_sent: 2, sent: 0 });
    }
  });

  it('sends one copy, once, when the copy the journal answered is gone: then nothing again in any order', async () => {
    await pass([a, other]);
    const c = { path: 'z/three.jpg', id: ID(1) };
    const changed = await pass([b, other, c]);
    // Held until the scan ended (no answered copy came), then sent: the first copy found.
    expect(changed.sent).toEqual(['two.jpg']);
    expect(changed.counts).toMatchObject({ duplicates: 1, skipped_already_sent: 1, sent: 1 });
    for (const order of permutations([b, c, other])) expect((await pass(order)).sent).toEqual([]);
  });

  it('--full sends the first copy of each id at once, as before', async () => {
    await pass([a, other]);
    expect((await pass([b, a, other], { full: true })).sent).toEqual(['two.jpg', 'other.jpg']);
  });

  it('a dry run plans what the real run does: nothing to send in the other order', async () => {
    await pass([a, b, other]);
    journal.close();
    const reader = openJournalReader(join(dir, journalFileName(key)));
    try {
      const dry = await runDrySync({
        scan: () => inOrder([b, a, other]),
        batchSize: 2,
        full: false,
        signal: new AbortController().signal,
        journal: reader,
      });
      expect(dry.plan).toEqual({ new: 0, changed: 0, pending: 0, already_answered: 2 });
      const moved = await runDrySync({
        scan: () => inOrder([b, other]),
        batchSize: 2,
        full: false,
        signal: new AbortController().signal,
        journal: reader,
      });
      expect(moved.plan).toEqual({ new: 0, changed: 1, pending: 0, already_answered: 1 });
    } finally {
      reader.close();
      journal = openJournal({ dir, key });
    }
  });

  it('an interrupted pass sends no held copy and journals nothing for it', async () => {
    await pass([a, other]);
    const controller = new AbortController();
    async function* stopAfterHeld(): AsyncGenerator<SyncInput[]> {
      yield [scanned(b)];
      controller.abort();
      yield [scanned(other)];
    }
    const svc = recordingService();
    const passId = journal.beginPass('incremental');
    const { interrupted } = await runPipeline({
      input: stopAfterHeld(),
      journal,
      passId,
      send: svc.send,
      batchSize: 2,
      concurrency: 1,
      full: false,
      signal: controller.signal,
    });
    journal.finishPass(passId, 'interrupted');
    expect(interrupted).toBe(true);
    expect(svc.sent).toEqual([]);
    expect(journal.answerFor({ id: b.id, fingerprint: Buffer.alloc(8) })).toBe('other');
    expect(journal.counts().pending).toBe(0);
  });
});

describe('createCopyChooser', () => {
  const chooser = (answers: Record<string, JournalAnswer>, maxHeld?: number) =>
    createCopyChooser<{ id: string; name: string }>({
      answer: (item) => answers[item.name] ?? 'none',
      ...(maxHeld ? { maxHeld } : {}),
    });

  it('holds a copy the journal answered for other metadata until a copy it answered comes, or the end', () => {
    const copies = chooser({ two: 'other', one: 'same', three: 'other' });
    expect(copies.offer(ID(1), () => ({ id: ID(1), name: 'two' }))).toEqual({ send: null, duplicates: 0, answered: 0 });
    expect(copies.held).toBe(1);
    expect(copies.offer(ID(1), () => ({ id: ID(1), name: 'three' }))).toEqual({
      send: null,
      duplicates: 1,
      answered: 0,
    });
    expect(copies.offer(ID(1), () => ({ id: ID(1), name: 'one' }))).toEqual({ send: null, duplicates: 1, answered: 1 });
    expect(copies.held).toBe(0);
    // Decided: any later copy is a duplicate, and its item is never built.
    expect(copies.offer(ID(1), () => expect.fail('built a decided copy'))).toEqual({
      send: null,
      duplicates: 1,
      answered: 0,
    });
    expect(copies.drain()).toEqual([]);
  });

  it('sends a new id at once, and the held ones at the end; past maxHeld the oldest goes at once', () => {
    const copies = chooser({ h1: 'other', h2: 'other', h3: 'other' }, 2);
    expect(copies.offer(ID(9), () => ({ id: ID(9), name: 'new' })).send).toEqual({ id: ID(9), name: 'new' });
    expect(copies.offer(ID(1), () => ({ id: ID(1), name: 'h1' })).send).toBeNull();
    expect(copies.offer(ID(2), () => ({ id: ID(2), name: 'h2' })).send).toBeNull();
    expect(copies.offer(ID(3), () => ({ id: ID(3), name: 'h3' })).send).toEqual({ id: ID(1), name: 'h1' });
    expect(copies.held).toBe(2);
    expect(copies.offer(ID(1), () => ({ id: ID(1), name: 'h1-again' })).duplicates).toBe(1);
    expect(copies.drain().map((item) => item.name)).toEqual(['h2', 'h3']);
    expect(copies.offer(ID(2), () => ({ id: ID(2), name: 'late' })).duplicates).toBe(1);
  });

  it('with no journal to ask (--full), the first copy is sent', () => {
    const copies = createCopyChooser<{ name: string }>({ answer: null });
    expect(copies.offer(ID(1), () => ({ name: 'b' })).send).toEqual({ name: 'b' });
    expect(copies.offer(ID(1), () => ({ name: 'a' }))).toEqual({ send: null, duplicates: 1, answered: 0 });
  });
});
