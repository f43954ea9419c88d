/**
 * One moment stored as several files: a Live Photo's still and its video, an edited copy and
 * its original. Pairing, not guessing: a video goes with a still by Apple's content identifier,
 * else by the same stem with a video of at most 3.5 s taken within 2 s of the still; an edited
 * copy goes with its original of the same stem (an edited video with a video). Each pair sends
 * one item (the still, the original); a video or a copy whose partner never shows is sent.
 *
 * The scan streams files out of order, so a file that may be the second of a pair waits, and
 * only it: stills and originals pass at once and are remembered (their keys, not the files). What
 * waits is bounded (`window`), as is what is remembered (`remember`): past them the oldest
 * waiting file is let go unpaired, the oldest key forgotten. Pure: no I/O, no clock.
 */

import { innermostMemberStart } from '../sources/formats.js';

/** What pairing needs to know of a file. */
export interface PairView {
  /**
   * The file's path, also the partner named by a pair; an archive member's is `part.zip!/member`
   * (parts of one export pair across).
   */
  path: string;
  mediaType: 'photo' | 'video';
  durationSeconds: number | null;
  /** The capture instant (ISO 8601, as `taken_at`); null when unknown. Parsed only when a video is weighed against a still. */
  takenAt: string | null;
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
  /** Files waiting for their partner at most (default 16,384). */
  window?: number;
  /** Stills and originals remembered at most (default 65,536; at least the latest half of that). */
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

/**
 * A folder is listed in the file system's order (hash order on ext4): in a folder of N Live
 * Photos read in random order about N / 4 videos wait at once at the middle: 16,384 pairs up to
 * 50,000 Live Photos in one folder (pairing.test.ts). A waiting file is its record, about 2 KB
 * (30 MB at the bound, only in a folder that large).
 */
const DEFAULT_WINDOW = 16_384;

/** The pair of an edited copy collapsed into its original. */
const copyOf = (partner: string): NonNullable<Paired<unknown>['pair']> => ({
  origin: 'edited_copy',
  rule: 'edited_copy_name',
  partner,
});
const DEFAULT_REMEMBER = 65_536;

/** A remembered still or original: what a partner needs of it, and no more (65,536 are kept). */
interface Still {
  /** The partner named by a pair. */
  path: string;
  contentId: string | undefined;
  takenAt: string | null;
}

const remembered = (view: PairView): Still => ({
  path: view.path,
  contentId: view.contentId,
  takenAt: view.takenAt,
});

interface Waiting<T> {
  item: T;
  view: PairView;
  /** The folder and stem it waits on (a video's own, a copy's original's), and their key. */
  folder: string;
  stem: string;
  key: string;
  kind: 'video' | 'copy';
}

/** An ISO instant in epoch ms; null when absent or unreadable. */
function instantMs(taken: string | null): number | null {
  if (taken === null) return null;
  const ms = Date.parse(taken);
  return Number.isNaN(ms) ? null : ms;
}

/** NFC only where it can change anything: most names are ASCII. */
const nfc = (text: string): string => (/[^\u0000-\u007f]/.test(text) ? text.normalize('NFC') : text);

/**
 * Splits a path into its folder (inside an archive: the member's folder, so parts of one export
 * meet) and its stem. Files come folder by folder: the last folder's string is given again while
 * its files pass, so it is cut, normalized and hashed once.
 */
function createSplitter(): (path: string) => { folder: string; stem: string } {
  let lastRaw = '';
  let lastFolder = '';
  return (path) => {
    const start = innermostMemberStart(path);
    const slash = path.lastIndexOf('/');
    const end = Math.max(slash, start);
    if (end - start !== lastRaw.length || !path.startsWith(lastRaw, start)) {
      lastRaw = path.slice(start, end);
      lastFolder = nfc(lastRaw);
    }
    const name = path.slice(slash + 1);
    const dot = name.lastIndexOf('.');
    return { folder: lastFolder, stem: nfc(dot > 0 ? name.slice(0, dot) : name) };
  };
}

/** The key a file waits under: the folder and stem it waits on, case folded. */
const keyOf = (folder: string, stem: string): string => `${folder}\u0000${stem}`.toLowerCase();

/** The original's stem of an edited copy's name, or null when the name is no edited copy's. */
export function editedOriginalStem(stem: string): string | null {
  if (!stem.includes('-')) return null; // most names: no suffix to look for
  const match = EDITED.exec(nfc(stem));
  return match ? match[1]! : null;
}

export function createPairing<T>(options: PairingOptions<T>): Pairing<T> {
  const window = options.window ?? DEFAULT_WINDOW;
  const split = createSplitter();
  const remember = options.remember ?? DEFAULT_REMEMBER;
  // Remembered stills by folder and stem and by content identifier, each bounded in two
  // generations (createGenerations).
  const stills = createStemMemory<Still>(remember);
  const byContentId = createGenerations<Still>(remember);
  // Videos by stem key: the originals an edited video goes with.
  const videos = createStemMemory<Still>(remember);
  const waiting = createWaitingRoom<T>();

  const known: KnownStills = { stills, byContentId };
  const videoPair = (item: T, view: PairView, folder: string, stem: string): Paired<T> | null => {
    const found = liveStill(view, folder, stem, known);
    return found ? { item, pair: { origin: 'live_photo_video', rule: found.rule, partner: found.still.path } } : null;
  };

  return {
    push(item) {
      const view = options.view(item);
      const { folder, stem } = split(view.path);
      const out: Paired<T>[] = [];
      const editedOf = editedOriginalStem(stem);
      if (view.mediaType === 'video' && editedOf !== null) {
        // An edited video goes with the video it was made from.
        const original = videos.get(folder, editedOf);
        if (original) return [{ item, pair: copyOf(original.path) }];
        waiting.wait({ item, view, folder, stem: editedOf, key: keyOf(folder, editedOf), kind: 'copy' });
      } else if (view.mediaType === 'video') {
        const key = keyOf(folder, stem);
        const original = remembered(view);
        videos.set(folder, stem, original);
        // Its edited copies that waited go with it now, whatever becomes of the video itself.
        for (const candidate of [...(waiting.byKey(key) ?? [])]) {
          const entry = waiting.get(candidate)!;
          if (entry.kind !== 'copy' || entry.view.mediaType !== 'video') continue;
          waiting.release(candidate);
          out.push({ item: candidate, pair: copyOf(original.path) });
        }
        const paired = mayBeLive(view) ? videoPair(item, view, folder, stem) : null;
        if (paired) return [...out, paired];
        if (!mayBeLive(view)) return [...out, { item, pair: null }];
        waiting.wait({ item, view, folder, stem, key, kind: 'video' });
      } else {
        if (editedOf !== null) {
          const still = stills.get(folder, editedOf);
          if (still) return [{ item, pair: copyOf(still.path) }];
          waiting.wait({ item, view, folder, stem: editedOf, key: keyOf(folder, editedOf), kind: 'copy' });
        } else {
          const still = remembered(view);
          stills.set(folder, stem, still);
          if (view.contentId !== undefined) byContentId.set(view.contentId, still);
          out.push({ item, pair: null });
          // What waited for this still goes with it now (mostly nothing: no key or set is made then).
          if (waiting.size === 0) return out;
          const byKey = waiting.byKey(keyOf(folder, stem));
          const byContent = view.contentId === undefined ? undefined : waiting.byContent(view.contentId);
          if (byKey === undefined && byContent === undefined) return out;
          const candidates = new Set([...(byKey ?? []), ...(byContent ?? [])]);
          for (const candidate of candidates) {
            const entry = waiting.get(candidate)!;
            // An edited video waits for its video, not for a still of the same name.
            if (entry.kind === 'copy' && entry.view.mediaType === 'video') continue;
            if (entry.kind === 'copy') {
              waiting.release(candidate);
              out.push({ item: candidate, pair: copyOf(still.path) });
              continue;
            }
            const paired = videoPair(candidate, entry.view, entry.folder, entry.stem);
            if (!paired) continue;
            waiting.release(candidate);
            out.push(paired);
          }
          return out;
        }
      }
      // Past the window the oldest waiting file goes unpaired: the stream is never held longer.
      if (waiting.size > window) {
        const oldest = waiting.oldest();
        if (oldest !== undefined) {
          waiting.release(oldest);
          out.push({ item: oldest, pair: null });
        }
      }
      waiting.compact();
      return out;
    },
    flush() {
      return waiting.clear().map((item): Paired<T> => ({ item, pair: null }));
    },
    get waiting() {
      return waiting.size;
    },
  };
}

/** The stills a Live Photo video may go with: by folder and stem, and by content identifier. */
interface KnownStills {
  stills: StemMemory<Still>;
  byContentId: Generations<Still>;
}

/** The still a Live Photo video goes with, and by which rule; null when none is known. */
function liveStill(
  view: PairView,
  folder: string,
  stem: string,
  known: KnownStills,
): { still: Still; rule: PairRule } | null {
  if (view.contentId !== undefined) {
    const still = known.byContentId.get(view.contentId);
    if (still) return { still, rule: 'content_identifier' };
  }
  const still = known.stills.get(folder, stem);
  if (!still) return null;
  // Two content identifiers that differ say these are two moments, whatever the names.
  if (still.contentId !== undefined && view.contentId !== undefined) return null;
  if (view.durationSeconds === null || view.durationSeconds > LIVE_VIDEO_MAX_SECONDS) return null;
  const videoMs = instantMs(view.takenAt);
  const stillMs = instantMs(still.takenAt);
  if (videoMs === null || stillMs === null) return null;
  return Math.abs(videoMs - stillMs) <= LIVE_TIME_TOLERANCE_MS ? { still, rule: 'live_photo_stem' } : null;
}

/** Whether a video may be a Live Photo's: one with Apple's identifier, or one short enough. */
const mayBeLive = (view: PairView): boolean =>
  view.contentId !== undefined || (view.durationSeconds !== null && view.durationSeconds <= LIVE_VIDEO_MAX_SECONDS);

/**
 * The files waiting for a partner: in arrival order (`queue` from `head`; released ones are
 * skipped when met), and by the key and the content identifier they wait on, so a still
 * finds its own.
 */
function createWaitingRoom<T>() {
  const waiting = new Map<T, Waiting<T>>();
  let queue: T[] = [];
  let head = 0;
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
  return {
    get size() {
      return waiting.size;
    },
    get: (item: T): Waiting<T> | undefined => waiting.get(item),
    byKey: (key: string): Set<T> | undefined => byWaitKey.get(key),
    byContent: (contentId: string): Set<T> | undefined => byWaitContent.get(contentId),
    wait(entry: Waiting<T>): void {
      waiting.set(entry.item, entry);
      queue.push(entry.item);
      index(byWaitKey, entry.key, entry.item);
      if (entry.view.contentId !== undefined) index(byWaitContent, entry.view.contentId, entry.item);
    },
    release(item: T): void {
      const entry = waiting.get(item);
      if (!entry) return;
      waiting.delete(item);
      unindex(byWaitKey, entry.key, item);
      if (entry.view.contentId !== undefined) unindex(byWaitContent, entry.view.contentId, item);
    },
    /** The oldest file still waiting, taken off the queue. */
    oldest(): T | undefined {
      while (head < queue.length) {
        const item = queue[head]!;
        head += 1;
        if (waiting.has(item)) return item;
      }
      return undefined;
    },
    compact(): void {
      // Each file enters the queue once: what lies before `head`, or was released, goes.
      if (head < 1024 || head * 2 < queue.length) return;
      queue = queue.slice(head).filter((item) => waiting.has(item));
      head = 0;
    },
    /** Every file still waiting, in arrival order; the room is left empty. */
    clear(): T[] {
      const items = [...waiting.keys()];
      waiting.clear();
      queue = [];
      head = 0;
      byWaitKey.clear();
      byWaitContent.clear();
      return items;
    },
  };
}

/**
 * A map of at least the latest `limit / 2` keys set and at most `limit`: two generations, the
 * older let go whole when the younger is full (no per-key eviction, no order to keep).
 */
interface Generations<V> {
  get(key: string): V | undefined;
  set(key: string, value: V): void;
}

function createGenerations<V>(limit: number): Generations<V> {
  const half = Math.ceil(limit / 2);
  let young = new Map<string, V>();
  let old = new Map<string, V>();
  return {
    get: (key) => young.get(key) ?? old.get(key),
    set(key, value) {
      if (limit <= 0) return;
      young.set(key, value);
      if (young.size >= half) {
        old = young;
        young = new Map();
      }
    },
  };
}

/**
 * Stills (or videos) by folder and stem, case folded, in the same two generations: a map per
 * folder, so the folder's name is folded and hashed once while its files pass, not per file.
 */
interface StemMemory<V> {
  get(folder: string, stem: string): V | undefined;
  set(folder: string, stem: string, value: V): void;
}

function createStemMemory<V>(limit: number): StemMemory<V> {
  const half = Math.ceil(limit / 2);
  let young = new Map<string, Map<string, V>>();
  let old = new Map<string, Map<string, V>>();
  let count = 0;
  let lastFolder: string | null = null;
  let lastKey = '';
  const folderKey = (folder: string): string => {
    if (folder !== lastFolder) {
      lastFolder = folder;
      lastKey = folder.toLowerCase();
    }
    return lastKey;
  };
  return {
    get(folder, stem) {
      const key = folderKey(folder);
      const name = stem.toLowerCase();
      return young.get(key)?.get(name) ?? old.get(key)?.get(name);
    },
    set(folder, stem, value) {
      if (limit <= 0) return;
      const key = folderKey(folder);
      let names = young.get(key);
      if (names === undefined) young.set(key, (names = new Map()));
      const before = names.size;
      names.set(stem.toLowerCase(), value);
      count += names.size - before;
      if (count >= half) {
        old = young;
        young = new Map();
        count = 0;
      }
    },
  };
}
