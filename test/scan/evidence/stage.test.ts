import { describe, expect, it } from 'vitest';
import { parseInclude } from '../../../src/scan/evidence/origin.js';
import { createEvidenceMemory, isSent, withOrigins } from '../../../src/scan/evidence/stage.js';
import type { ScanEvent, ScanRecord, ScannedMedia, SourceInfo } from '../../../src/scan/types.js';

const media = (filename: string, extra: Partial<ScannedMedia> = {}): ScannedMedia => ({
  id: `sha256:${filename}`,
  taken_at: '2024-07-12T20:00:00Z',
  latitude: 40.75,
  longitude: -73.99,
  media_type: /\.(mov|mp4)$/i.test(filename) ? 'video' : 'photo',
  filename,
  duration_seconds: null,
  device_make: null,
  device_model: null,
  device_lens_model: null,
  ...extra,
});

const record = (path: string, extra: Partial<ScannedMedia> = {}, evidence?: SourceInfo['evidence']): ScanEvent => ({
  type: 'record',
  record: {
    path,
    absPath: `/lib/${path}`,
    size: 1,
    mtimeMs: 0,
    media: media(path.split('/').pop()!, extra),
    source: { taken_at: 'takeout', coordinates: 'takeout', ...(evidence ? { evidence } : {}) },
    error: null,
    cached: false,
  },
});

/** Shows a path as a scan of `/lib` does. */
const underLib = (absPath: string): string => absPath.slice('/lib/'.length);

async function* from(batches: ScanEvent[][]): AsyncGenerator<ScanEvent[]> {
  for (const batch of batches) yield batch;
}

async function collect(batches: ScanEvent[][], include: string[] = []): Promise<Map<string, ScanRecord>> {
  const parsed = parseInclude(include);
  if (!('included' in parsed)) throw new Error('bad include');
  const out = new Map<string, ScanRecord>();
  const memory = createEvidenceMemory({ shown: underLib });
  for await (const batch of withOrigins(from(batches), { included: parsed.included, memory }))
    for (const event of batch) if (event.type === 'record') out.set(event.record.path, event.record);
  return out;
}

const partner = record('Photos/PXL_1.jpg', {}, { takeout_origin: 'fromPartnerSharing' });
const still = record('Photos/IMG_2.HEIC', { device_make: 'Apple' }, { content_id: 'ABCDEF12' });
const clip = record('Photos/IMG_2.MOV', { duration_seconds: 2.5, device_make: 'Apple' }, { content_id: 'ABCDEF12' });
const original = record('Photos/IMG_3.jpg');
const copy = record('Photos/IMG_3-edited.jpg');
const plain = record('misc/drawing.png', { taken_at: null, latitude: null, longitude: null });

describe('withOrigins', () => {
  it('by default leaves out the partner photo and collapses each pair into the file sent', async () => {
    // The video and the copy come first, in another batch than their partners.
    const out = await collect([
      [clip, copy],
      [partner, still],
      [original, plain],
    ]);
    expect(out.size).toBe(6);
    const sent = [...out.values()].filter(isSent).map((r) => r.path);
    expect(sent.sort()).toEqual(['Photos/IMG_2.HEIC', 'Photos/IMG_3.jpg', 'misc/drawing.png']);
    expect(out.get('Photos/PXL_1.jpg')!.origin).toMatchObject({
      origin: 'partner_shared',
      rule: 'takeout_partner_sharing',
      left_out: 'partner_shared',
    });
    expect(out.get('Photos/IMG_2.MOV')!.origin).toMatchObject({
      origin: 'live_photo_video',
      rule: 'content_identifier',
      left_out: 'live_photo_video',
      pair: { partner: 'Photos/IMG_2.HEIC' },
    });
    expect(out.get('Photos/IMG_3-edited.jpg')!.origin?.left_out).toBe('edited_copy');
    expect(out.get('misc/drawing.png')!.origin).toMatchObject({ origin: 'unknown', left_out: null });
  });

  it('sends what --include names, and both halves of a pair whose class is named', async () => {
    const out = await collect([[clip, copy, partner, still, original]], ['partner_shared,live_photo_video']);
    expect(isSent(out.get('Photos/PXL_1.jpg')!)).toBe(true);
    const video = out.get('Photos/IMG_2.MOV')!;
    expect(isSent(video)).toBe(true);
    expect(video.origin).toMatchObject({ origin: 'own', pair: { origin: 'live_photo_video' } });
    expect(isSent(out.get('Photos/IMG_3-edited.jpg')!)).toBe(false);
  });

  it('sends everything with all', async () => {
    const out = await collect([[clip, copy, partner, still, original, plain]], ['all']);
    expect([...out.values()].every(isSent)).toBe(true);
  });

  it('does not pair with a file left out: an edited copy of a trashed original is sent', async () => {
    const trashed = record('Photos/IMG_4.jpg', {}, { takeout_trashed: true });
    const edited = record('Photos/IMG_4-edited.jpg');
    const out = await collect([[trashed, edited]]);
    expect(out.get('Photos/IMG_4.jpg')!.origin?.left_out).toBe('trashed');
    expect(isSent(out.get('Photos/IMG_4-edited.jpg')!)).toBe(true);
  });

  it("a run's memory: a later stream's video goes with an earlier stream's still; what waits goes with each stream", async () => {
    // The run names partners by its own rule, in every stream (a watch's scan has other roots).
    const memory = createEvidenceMemory({ shown: underLib });
    const stream = async (events: ScanEvent[]): Promise<Map<string, ScanRecord>> => {
      const out = new Map<string, ScanRecord>();
      for await (const batch of withOrigins(from([events]), { memory }))
        for (const event of batch) if (event.type === 'record') out.set(event.record.path, event.record);
      return out;
    };
    const live = (name: string, id: string) => [
      record(`L/${name}.HEIC`, { device_make: 'Apple' }, { content_id: id }),
      record(`L/${name}.MOV`, { duration_seconds: 2, device_make: 'Apple' }, { content_id: id }),
    ];
    const [stillA, clipA] = live('IMG_7', 'ID-7');
    expect(isSent((await stream([stillA!])).get('L/IMG_7.HEIC')!)).toBe(true);
    expect((await stream([clipA!])).get('L/IMG_7.MOV')!.origin).toMatchObject({
      left_out: 'live_photo_video',
      pair: { partner: 'L/IMG_7.HEIC' },
    });
    // A video before its still: let go (sent) at the end of its own stream, never held for the next.
    const [stillB, clipB] = live('IMG_8', 'ID-8');
    expect(isSent((await stream([clipB!])).get('L/IMG_8.MOV')!)).toBe(true);
    expect(memory.pairing.waiting).toBe(0);
    expect([...(await stream([stillB!])).keys()]).toEqual(['L/IMG_8.HEIC']);
    // A stream left early (its reader stopped) leaves nothing waiting either.
    const [, clipC] = live('IMG_9', 'ID-9');
    for await (const batch of withOrigins(from([[clipC!], [record('L/other.jpg')]]), { memory })) {
      void batch;
      break;
    }
    expect(memory.pairing.waiting).toBe(0);
  });

  it('passes errors and notices through untouched', async () => {
    const broken: ScanEvent = {
      type: 'record',
      record: {
        ...(record('x.jpg') as { record: ScanRecord }).record,
        media: null,
        source: null,
        error: { code: 'corrupt_file', message: 'x' },
      },
    };
    const notice: ScanEvent = { type: 'skipped', reason: 'sidecar', path: 'x.json' };
    const seen: ScanEvent[] = [];
    for await (const batch of withOrigins(from([[broken, notice]]), { memory: createEvidenceMemory() }))
      seen.push(...batch);
    expect(seen).toEqual([broken, notice]);
    expect((seen[0] as { record: ScanRecord }).record.origin).toBeUndefined();
  });
});
