/**
 * Ids already seen in this run, kept compact: a `sha256:<hex>` id (the scanner's form) is
 * stored as its 32 raw bytes in a one-byte string, about a third of the hex form, so a
 * million-file library stays in tens of megabytes. The journal, not this set, is the
 * durable record across runs.
 */
export interface SeenIds {
  /** Adds an id; returns false when it was already there (a duplicate). */
  add(id: string): boolean;
  readonly size: number;
}

const SHA256_ID = /^sha256:[0-9a-f]{64}$/;

/** The compact key of an id (distinct ids always give distinct keys). */
export function compactId(id: string): string {
  if (SHA256_ID.test(id)) return `\u0000${Buffer.from(id.slice(7), 'hex').toString('latin1')}`;
  return `\u0001${id}`;
}

/** A fresh set of seen ids. */
export function createSeenIds(): SeenIds {
  const set = new Set<string>();
  return {
    add(id) {
      const key = compactId(id);
      if (set.has(key)) return false;
      set.add(key);
      return true;
    },
    get size() {
      return set.size;
    },
  };
}
