import { describe, expect, it } from 'vitest';
import { createPairing, editedOriginalStem, type PairView, type Paired } from '../../../src/scan/evidence/pairing.js';

const T0 = Date.UTC(2024, 6, 12, 20, 0, 0);
/** A view's extra members; `takenMs` (epoch ms, null: none) stands for its `takenAt`. */
type Extra = Partial<Omit<PairView, 'takenAt'>> & { takenMs?: number | null };
const viewOf = (base: Omit<PairView, 'takenAt'>, { takenMs = T0, ...extra }: Extra): PairView => ({
  ...base,
  takenAt: takenMs === null ? null : new Date(takenMs).toISOString(),
  ...extra,
});
const photo = (path: string, extra: Extra = {}): PairView =>
  viewOf({ path, mediaType: 'photo', durationSeconds: null, contentId: undefined }, extra);
const video = (path: string, seconds: number | null, extra: Extra = {}): PairView =>
  viewOf({ path, mediaType: 'video', durationSeconds: seconds, contentId: undefined }, extra);

/** Pushes every file in order, flushes, and reports each file's pairing by path. */
function run(files: PairView[], window?: number): Record<string, string> {
  const pairing = createPairing<PairView>({ view: (v) => v, ...(window === undefined ? {} : { window }) });
  const out: Paired<PairView>[] = [];
  for (const file of files) out.push(...pairing.push(file));
  out.push(...pairing.flush());
  expect(out).toHaveLength(files.length); // nothing lost, nothing twice
  expect(pairing.waiting).toBe(0);
  return Object.fromEntries(
    out.map(({ item, pair }) => [item.path, pair ? `${pair.origin} ${pair.rule} -> ${pair.partner}` : 'alone']),
  );
}

describe('Live Photo pairing', () => {
  it('pairs by content identifier whatever the names and times, in either order', () => {
    const still = photo('a/IMG_1.HEIC', { contentId: 'ABC' });
    const clip = video('b/renamed.MOV', 2.9, { contentId: 'ABC', takenMs: T0 + 60_000 });
    expect(run([still, clip])['b/renamed.MOV']).toBe('live_photo_video content_identifier -> a/IMG_1.HEIC');
    expect(run([clip, still])['b/renamed.MOV']).toBe('live_photo_video content_identifier -> a/IMG_1.HEIC');
  });

  it('pairs by stem, a short video and times within 2 s, in either order', () => {
    const still = photo('Takeout/Google Photos/Photos from 2024/IMG_2.HEIC');
    const clip = video('Takeout/Google Photos/Photos from 2024/IMG_2.MP4', 3.0, { takenMs: T0 + 1500 });
    expect(run([still, clip])[clip.path]).toBe(`live_photo_video live_photo_stem -> ${still.path}`);
    expect(run([clip, still])[clip.path]).toBe(`live_photo_video live_photo_stem -> ${still.path}`);
  });

  it('pairs parts of one export across archives', () => {
    const still = photo('takeout-001.zip!/Takeout/Google Photos/Photos from 2024/IMG_3.HEIC');
    const clip = video('takeout-002.zip!/Takeout/Google Photos/Photos from 2024/IMG_3.MP4', 2);
    expect(run([clip, still])[clip.path]).toBe(`live_photo_video live_photo_stem -> ${still.path}`);
  });

  const alone: [string, PairView[]][] = [
    ['a video longer than 3.5 s', [photo('IMG_4.HEIC'), video('IMG_4.MOV', 3.6)]],
    ['times 2.5 s apart', [photo('IMG_5.HEIC'), video('IMG_5.MOV', 2, { takenMs: T0 + 2500 })]],
    ['no capture time', [photo('IMG_6.HEIC', { takenMs: null }), video('IMG_6.MOV', 2)]],
    ['no duration', [photo('IMG_7.HEIC'), video('IMG_7.MOV', null)]],
    ['another folder', [photo('a/IMG_8.HEIC'), video('b/IMG_8.MOV', 2)]],
    // Only an archive's name ends at `!/`: two folders named with a `!` are two folders.
    ['another folder named with a !', [photo('Wow!/IMG_11.HEIC'), video('Yes!/IMG_11.MOV', 2)]],
    ['two different identifiers', [photo('IMG_9.HEIC', { contentId: 'X' }), video('IMG_9.MOV', 2, { contentId: 'Y' })]],
    ['no still at all', [video('IMG_10.MOV', 2)]],
  ];
  it.each(alone)('leaves a video alone with %s', (_, files) => {
    const result = run(files);
    for (const file of files) expect(result[file.path]).toBe('alone');
  });
});

describe('edited copies', () => {
  it.each([
    ['IMG_1-edited', 'IMG_1'],
    ['IMG_1-bearbeitet', 'IMG_1'],
    ['IMG_1-modifié', 'IMG_1'],
    ['IMG_1-editado', 'IMG_1'],
    ['IMG_1-modificato', 'IMG_1'],
    ['IMG_1-EDITED(1)', 'IMG_1'],
    ['IMG_1-編集済み', 'IMG_1'],
    ['IMG_1', null],
    ['-edited', null],
    ['IMG_1-editing', null],
  ])('%s is the copy of %s', (stem, original) => {
    expect(editedOriginalStem(stem)).toBe(original);
  });

  it('goes with its original in either order; alone without it', () => {
    const original = photo('P/IMG_4006.jpg');
    const copy = photo('P/IMG_4006-edited.jpg');
    expect(run([original, copy])[copy.path]).toBe('edited_copy edited_copy_name -> P/IMG_4006.jpg');
    expect(run([copy, original])[copy.path]).toBe('edited_copy edited_copy_name -> P/IMG_4006.jpg');
    expect(run([original, copy])[original.path]).toBe('alone');
    expect(run([copy])[copy.path]).toBe('alone');
  });

  it('an edited video goes with its video in either order, never with a still of the same name', () => {
    const original = video('V/VID_20240712_200000.mp4', 95);
    const copy = video('V/VID_20240712_200000-edited.mp4', 40);
    expect(run([original, copy])[copy.path]).toBe(`edited_copy edited_copy_name -> ${original.path}`);
    expect(run([copy, original])[copy.path]).toBe(`edited_copy edited_copy_name -> ${original.path}`);
    expect(run([copy, original])[original.path]).toBe('alone');
    const still = photo('V/IMG_5.HEIC');
    const clip = video('V/IMG_5-edited.MP4', 2);
    expect(run([still, clip])[clip.path]).toBe('alone');
    expect(run([clip, still])[clip.path]).toBe('alone');
    // An edited photo is no copy of a video of the same name either.
    const film = video('V/IMG_6.MP4', 60);
    const picture = photo('V/IMG_6-edited.jpg');
    expect(run([film, picture])[picture.path]).toBe('alone');
    expect(run([picture, film])[picture.path]).toBe('alone');
  });

  it("a Live Photo's edited video goes with its video, and that video with its still", () => {
    const still = photo('L/IMG_7.HEIC');
    const clip = video('L/IMG_7.MOV', 2.5);
    const edited = video('L/IMG_7-edited.MOV', 2.5);
    for (const order of [
      [still, clip, edited],
      [edited, clip, still],
      [clip, edited, still],
    ]) {
      const result = run(order);
      expect(result[clip.path]).toBe(`live_photo_video live_photo_stem -> ${still.path}`);
      expect(result[edited.path]).toBe(`edited_copy edited_copy_name -> ${clip.path}`);
      expect(result[still.path]).toBe('alone');
    }
  });

  it('lets the original out at once and the copy only once it is decided', () => {
    const pairing = createPairing<PairView>({ view: (v) => v });
    expect(pairing.push(photo('IMG_1-edited.jpg'))).toEqual([]);
    const out = pairing.push(photo('IMG_1.jpg'));
    expect(out.map((p) => p.item.path)).toEqual(['IMG_1.jpg', 'IMG_1-edited.jpg']);
  });
});

describe('bounds', () => {
  it('never holds more than the window: the oldest waiting file goes out unpaired', () => {
    const pairing = createPairing<PairView>({ view: (v) => v, window: 2 });
    expect(pairing.push(video('a/V1.MOV', 1))).toEqual([]);
    expect(pairing.push(video('a/V2.MOV', 1))).toEqual([]);
    expect(pairing.push(video('a/V3.MOV', 1))).toEqual([{ item: video('a/V1.MOV', 1), pair: null }]);
    expect(pairing.waiting).toBe(2);
  });

  it('with the default bounds, pairs every one of 50,000 Live Photos in one folder listed in random order', () => {
    // ext4 lists a folder in hash order: about a quarter of its videos wait at once at the middle.
    const files: PairView[] = [];
    for (let i = 0; i < 50_000; i++)
      files.push(photo(`f/IMG_${i}.HEIC`), video(`f/IMG_${i}.MOV`, 2, { takenMs: T0 + 1000 }));
    let seed = 7;
    const random = (): number => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31; // a fixed shuffle: the same order every run
      return seed / 2 ** 31;
    };
    for (let i = files.length - 1; i > 0; i--) {
      const j = Math.floor(random() * (i + 1));
      [files[i], files[j]] = [files[j]!, files[i]!];
    }
    const pairing = createPairing<PairView>({ view: (v) => v });
    let most = 0;
    let paired = 0;
    const count = (out: Paired<PairView>[]): void => {
      for (const { pair } of out) if (pair !== null) paired += 1;
    };
    for (const file of files) {
      count(pairing.push(file));
      most = Math.max(most, pairing.waiting);
    }
    count(pairing.flush());
    expect(most).toBeGreaterThan(10_000); // the order did make videos wait, past the old window of 4,096
    expect(paired).toBe(50_000);
  });

  it('passes photos and long videos through at once', () => {
    const pairing = createPairing<PairView>({ view: (v) => v, window: 0 });
    expect(pairing.push(photo('a.jpg'))).toHaveLength(1);
    expect(pairing.push(video('b.mp4', 60))).toHaveLength(1);
    expect(pairing.waiting).toBe(0);
  });

  it('remembers at least the latest half of its memory, whatever the folders, and a still seen again anew', () => {
    const pairing = createPairing<PairView>({ view: (v) => v, remember: 4 });
    pairing.push(photo('a/IMG_1.jpg'));
    pairing.push(photo('b/IMG_2.jpg')); // two remembered: they become the older half
    pairing.push(photo('a/IMG_1.jpg')); // seen again: in the younger half too
    pairing.push(photo('c/IMG_3.jpg')); // the younger half is full: the older one (IMG_2) is let go
    expect(pairing.push(photo('A/img_1-edited.JPG'))[0]?.pair?.partner).toBe('a/IMG_1.jpg'); // case folded
    expect(pairing.push(photo('c/IMG_3-edited.jpg'))[0]?.pair?.partner).toBe('c/IMG_3.jpg');
    expect(pairing.push(photo('b/IMG_2-edited.jpg'))).toEqual([]);
  });

  it('never remembers more than its memory, in one folder or many', () => {
    for (const folders of [1, 7]) {
      const pairing = createPairing<PairView>({ view: (v) => v, remember: 10 });
      for (let i = 0; i < 1000; i++) pairing.push(photo(`f${i % folders}/IMG_${i}.jpg`));
      let found = 0;
      for (let i = 0; i < 1000; i++)
        if (pairing.push(photo(`f${i % folders}/IMG_${i}-edited.jpg`))[0]?.pair) found += 1;
      // The copies pushed above are no stills: what is remembered is the last 5 to 10 stills.
      expect(found).toBeGreaterThanOrEqual(5);
      expect(found).toBeLessThanOrEqual(10);
    }
  });

  it('forgets the oldest stills past its memory', () => {
    const pairing = createPairing<PairView>({ view: (v) => v, remember: 1 });
    pairing.push(photo('IMG_1.jpg'));
    pairing.push(photo('IMG_2.jpg'));
    expect(pairing.push(photo('IMG_1-edited.jpg'))).toEqual([]); // IMG_1 is forgotten: the copy waits
    expect(pairing.push(photo('IMG_2-edited.jpg'))[0]?.pair?.partner).toBe('IMG_2.jpg');
  });
});
