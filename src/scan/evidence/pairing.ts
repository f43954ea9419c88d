/**
 * One moment stored as several files: a Live Photo's still and its video, an edited copy and
 * its original. Pairing, not guessing: a video goes with a still by Apple's content identifier,
 * else by the same stem with a video of at most 3.5 s taken within 2 s of the still; an edited
 * copy goes with its original of the same stem. Each pair sends one item (the still, the
 * original); a video or a copy whose partner never shows is sent.
 *
 * The scan streams files out of order, so a file that may be the second of a pair waits, and
 * only it: stills and originals pass at once and are remembered (their keys, not the files). What
 * waits is bounded (`window`), as is what is remembered (`remember`): past them the oldest
 * waiting file is let go unpaired, the oldest key forgotten. Pure: no I/O, no clock.
 */

/** What pairing needs to know of a file. */
export interface PairView {
  /** The path the user sees; an archive member's is `part.zip!/member` (parts of one export pair across). */
  path: string;
  /** The path shown as a partner (default `path`). */
  shown?: string;
  mediaType: 'photo' | 'video';
  durationSeconds: number | null;
  /** The capture instant, epoch ms; null when unknown. */
  takenMs: number | null;
  contentId: string | undefined;
}

export type PairRule = 'content_identifier' | 'live_photo_stem' | 'edited_copy_name';

/** One file let out of the pairing: alone, or as the second of a pair (collapsed into `partner`). */
export interface Paired<T> {
  item: T;
  pair: { origin: 'live_photo_video' | 'edited_copy'; rule: PairRule; partner: string } | null;
}

export interface PairingOptions<T> {
  view(item: T): PairView;
  /** Files waiting for their partner at most (default 4,096). */
  window?: number;
  /** Stills and originals remembered at most (default 65,536 keys). */
  remember?: number;
}

export interface Pairing<T> {
  /** One file in; the files let out by it (itself, a partner that waited for it, the oldest waiting). */
  push(item: T): Paired<T>[];
  /** The end of the stream: every file still waiting goes out unpaired. */
  flush(): Paired<T>[];
  readonly waiting: number;
}

/** A Live Photo's video is this short at most (Apple records 1.5 s either side of the still). */
export const LIVE_VIDEO_MAX_SECONDS = 3.5;
/** Its capture time lies this close to the still's. */
export const LIVE_TIME_TOLERANCE_MS = 2000;

/**
 * The suffixes Google Photos gives an edited copy, by the account's language (Takeout keeps
 * the original beside it): English, German, French, Spanish and Portuguese, Italian, Dutch,
 * Polish, Catalan, Swedish, Danish and Norwegian, Finnish, Czech, Japanese.
 */
export const EDITED_SUFFIXES: readonly string[] = [
  'edited',
  'bearbeitet',
  'modifié',
  'editado',
  'ha editado',
  'modificato',
  'bewerkt',
  'edytowane',
  'editat',
  'redigerad',
  'redigeret',
  'redigert',
  'muokattu',
  'upraveno',
  '編集済み',
];
const EDITED = new RegExp(
  `^(.+)-(${EDITED_SUFFIXES.map((s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|')})(\\(\\d+\\))?$`,
  'iu',
);

const DEFAULT_WINDOW = 4096;
const DEFAULT_REMEMBER = 65_536;

interface Still {
  path: string;
  takenMs: number | null;
  contentId: string | undefined;
}

interface Waiting<T> {
  item: T;
  view: PairView;
  /** The stem key it waits on (a video's or a copy's original's). */
  key: string;
  kind: 'video' | 'copy';
}

/** The folder (inside an archive: the member's folder, so parts of one export meet) and the stem, lower-case. */
function split(path: string): { folder: string; stem: string } {
  const inside = path.slice(path.lastIndexOf('!/') + 1);
  const slash = inside.lastIndexOf('/');
  const name = inside.slice(slash + 1);
  const dot = name.lastIndexOf('.');
  return {
    folder: inside.slice(0, Math.max(slash, 0)).normalize('NFC'),
    stem: (dot > 0 ? name.slice(0, dot) : name).normalize('NFC'),
  };
}

const keyOf = (folder: string, stem: string, type: string): string =>
  `${type}\u0000${folder}\u0000${stem}`.toLowerCase();

/** The original's stem of an edited copy's name, or null when the name is no edited copy's. */
export function editedOriginalStem(stem: string): string | null {
  const match = EDITED.exec(stem.normalize('NFC'));
  return match ? match[1]! : null;
}

export function createPairing<T>(options: PairingOptions<T>): Pairing<T> {
  const window = options.window ?? DEFAULT_WINDOW;
  const remember = options.remember ?? DEFAULT_REMEMBER;
  // Map order is insertion order: the first entry is the oldest.
  const stills = new Map<string, Still>();
  const byContentId = new Map<string, Still>();
  const waiting = new Map<T, Waiting<T>>();
  // The waiting files by the key and the content identifier they wait on: a still finds its own.
  const byWaitKey = new Map<string, Set<T>>();
  const byWaitContent = new Map<string, Set<T>>();
  const index = (map: Map<string, Set<T>>, key: string, item: T): void => {
    const set = map.get(key);
    if (set) set.add(item);
    else map.set(key, new Set([item]));
  };
  const unindex = (map: Map<string, Set<T>>, key: string, item: T): void => {
    const set = map.get(key);
    set?.delete(item);
    if (set?.size === 0) map.delete(key);
  };
  const wait = (entry: Waiting<T>): void => {
    waiting.set(entry.item, entry);
    index(byWaitKey, entry.key, entry.item);
    if (entry.view.contentId !== undefined) index(byWaitContent, entry.view.contentId, entry.item);
  };
  const release = (item: T): void => {
    const entry = waiting.get(item);
    if (!entry) return;
    waiting.delete(item);
    unindex(byWaitKey, entry.key, item);
    if (entry.view.contentId !== undefined) unindex(byWaitContent, entry.view.contentId, item);
  };

  const forgetOldest = (): void => {
    while (stills.size > remember) stills.delete(stills.keys().next().value!);
    while (byContentId.size > remember) byContentId.delete(byContentId.keys().next().value!);
  };

  /** The still a Live Photo video goes with, and by which rule; null when none is known. */
  const liveStill = (view: PairView, key: string): { still: Still; rule: PairRule } | null => {
    if (view.contentId !== undefined) {
      const still = byContentId.get(view.contentId);
      if (still) return { still, rule: 'content_identifier' };
    }
    const still = stills.get(key);
    if (!still) return null;
    // Two content identifiers that differ say these are two moments, whatever the names.
    if (still.contentId !== undefined && view.contentId !== undefined) return null;
    if (view.durationSeconds === null || view.durationSeconds > LIVE_VIDEO_MAX_SECONDS) return null;
    if (view.takenMs === null || still.takenMs === null) return null;
    return Math.abs(view.takenMs - still.takenMs) <= LIVE_TIME_TOLERANCE_MS ? { still, rule: 'live_photo_stem' } : null;
  };

  /** Whether a video may be a Live Photo's: one with Apple's identifier, or one short enough. */
  const mayBeLive = (view: PairView): boolean =>
    view.contentId !== undefined || (view.durationSeconds !== null && view.durationSeconds <= LIVE_VIDEO_MAX_SECONDS);

  const videoPair = (item: T, view: PairView, key: string): Paired<T> | null => {
    const found = liveStill(view, key);
    return found ? { item, pair: { origin: 'live_photo_video', rule: found.rule, partner: found.still.path } } : null;
  };

  return {
    push(item) {
      const view = options.view(item);
      const { folder, stem } = split(view.path);
      const out: Paired<T>[] = [];
      if (view.mediaType === 'video') {
        const key = keyOf(folder, stem, 'photo');
        const paired = mayBeLive(view) ? videoPair(item, view, key) : null;
        if (paired) return [paired];
        if (!mayBeLive(view)) return [{ item, pair: null }];
        wait({ item, view, key, kind: 'video' });
      } else {
        const original = editedOriginalStem(stem);
        if (original !== null) {
          const key = keyOf(folder, original, 'photo');
          const still = stills.get(key);
          if (still) return [{ item, pair: { origin: 'edited_copy', rule: 'edited_copy_name', partner: still.path } }];
          wait({ item, view, key, kind: 'copy' });
        } else {
          const key = keyOf(folder, stem, 'photo');
          const still: Still = { path: view.shown ?? view.path, takenMs: view.takenMs, contentId: view.contentId };
          stills.delete(key);
          stills.set(key, still);
          if (view.contentId !== undefined) {
            byContentId.delete(view.contentId);
            byContentId.set(view.contentId, still);
          }
          forgetOldest();
          out.push({ item, pair: null });
          // What waited for this still goes with it now.
          const candidates = new Set([
            ...(byWaitKey.get(key) ?? []),
            ...(view.contentId === undefined ? [] : (byWaitContent.get(view.contentId) ?? [])),
          ]);
          for (const candidate of candidates) {
            const entry = waiting.get(candidate)!;
            if (entry.kind === 'copy') {
              release(candidate);
              out.push({
                item: candidate,
                pair: { origin: 'edited_copy', rule: 'edited_copy_name', partner: still.path },
              });
              continue;
            }
            const paired = videoPair(candidate, entry.view, entry.key);
            if (!paired) continue;
            release(candidate);
            out.push(paired);
          }
          return out;
        }
      }
      // Past the window the oldest waiting file goes unpaired: the stream is never held longer.
      if (waiting.size > window) {
        const oldest = waiting.keys().next().value as T;
        release(oldest);
        out.push({ item: oldest, pair: null });
      }
      return out;
    },
    flush() {
      const out = [...waiting.keys()].map((item): Paired<T> => ({ item, pair: null }));
      waiting.clear();
      byWaitKey.clear();
      byWaitContent.clear();
      return out;
    },
    get waiting() {
      return waiting.size;
    },
  };
}
