const SHA256_ID = /^sha256:[0-9a-f]{64}$/;

/**
 * The compact key of an id (distinct ids always give distinct keys): a `sha256:<hex>` id (the
 * scanner's form) becomes its 32 raw bytes in a one-byte string, about a third of the hex form,
 * so the ids of a million-file library stay in tens of megabytes.
 */
export function compactId(id: string): string {
  if (SHA256_ID.test(id)) return `\u0000${Buffer.from(id.slice(7), 'hex').toString('latin1')}`;
  return `\u0001${id}`;
}

/** What the journal held for an id when the pass began: an answer for this metadata, for other metadata, or none. */
export type JournalAnswer = 'same' | 'other' | 'none';

/** What to do with one copy of an id (one file), and what it settled besides. */
export interface CopyChoice<T> {
  /** An item to send now: this copy, or a held one the hold had no room left for. */
  send: T | null;
  /** Copies dropped as duplicates of a decided id: this one, or a held one this copy replaced. */
  duplicates: number;
  /** 1 when this copy is the one whose metadata the journal already answered. */
  answered: number;
}

/** Decides, file by file, which copy of each id a pass sends (see createCopyChooser). */
export interface CopyChooser<T> {
  /** One copy of `id`; `make` builds its item (fingerprint included) only when it is needed. */
  offer(id: string, make: () => T): CopyChoice<T>;
  /** The copies still held once the scan has ended: no copy the journal answered came, so send them. */
  drain(): T[];
  readonly held: number;
}

export interface CopyChooserOptions<T> {
  /** The journal's answer for an item; null in a pass that sends everything again (`--full`). */
  answer: ((item: T) => JournalAnswer) | null;
  /** Copies held at once; past it the oldest is sent (default 8,192: a few MB). */
  maxHeld?: number;
}

/** Default bound of held copies: each is one item's metadata, path and fingerprint. */
const MAX_HELD_COPIES = 8_192;

/**
 * The same bytes at two paths are one id with two sets of metadata (the file name, at least),
 * and the journal keeps the fingerprint of the one that was sent. The scan streams files in no
 * fixed order (reads finish out of order, the cache answers before the reads), so the first
 * copy of a pass is not always the copy the last pass sent. Sending the first copy found made
 * an unchanged library re-send one copy on some runs. So a copy whose id the journal answered
 * for *other* metadata is held, not sent: if a later copy of the same id is the answered one,
 * the held copy is a duplicate and nothing is sent; if none comes by the end of the scan, the
 * metadata really changed and the held copy is sent then. An id the journal does not hold is
 * sent at once (its first copy), as before. At most `maxHeld` copies are held; past that (a
 * pass in which thousands of answered ids changed) the oldest is sent without waiting.
 */
export function createCopyChooser<T>(options: CopyChooserOptions<T>): CopyChooser<T> {
  const maxHeld = options.maxHeld ?? MAX_HELD_COPIES;
  const decided = new Set<string>();
  // Insertion order is the order held, so the first is the oldest.
  const held = new Map<string, T>();
  const none: CopyChoice<T> = { send: null, duplicates: 0, answered: 0 };

  return {
    offer(id, make) {
      const key = compactId(id);
      const waiting = held.get(key);
      if (waiting === undefined && decided.has(key)) return { ...none, duplicates: 1 };
      const item = make();
      if (options.answer === null) {
        decided.add(key);
        return { ...none, send: item };
      }
      const answer = options.answer(item);
      if (waiting !== undefined) {
        if (answer !== 'same') return { ...none, duplicates: 1 };
        // The answered copy came after all: nothing to send for this id.
        held.delete(key);
        decided.add(key);
        return { ...none, duplicates: 1, answered: 1 };
      }
      if (answer === 'same') {
        decided.add(key);
        return { ...none, answered: 1 };
      }
      if (answer === 'none') {
        decided.add(key);
        return { ...none, send: item };
      }
      held.set(key, item);
      if (held.size <= maxHeld) return none;
      const [oldestKey, oldest] = held.entries().next().value as [string, T];
      held.delete(oldestKey);
      decided.add(oldestKey);
      return { ...none, send: oldest };
    },
    drain() {
      const items = [...held.values()];
      for (const key of held.keys()) decided.add(key);
      held.clear();
      return items;
    },
    get held() {
      return held.size;
    },
  };
}
