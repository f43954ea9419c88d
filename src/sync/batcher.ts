import { MAX_BATCH_ITEMS, MIN_BATCH_ITEMS } from '../contract/index.js';

/** Collects items into batches of a fixed size; pure and synchronous. */
export interface Batcher<T> {
  /** Adds an item; returns a full batch when this item completed one, else null. */
  add(item: T): T[] | null;
  /** Returns the last, partial batch (null when empty) and resets. */
  flush(): T[] | null;
}

/** A batcher of `size` items (1 to 200, the contract's bounds). */
export function createBatcher<T>(size: number): Batcher<T> {
  if (!Number.isInteger(size) || size < MIN_BATCH_ITEMS || size > MAX_BATCH_ITEMS) {
    throw new RangeError(`batch size must be an integer from ${MIN_BATCH_ITEMS} to ${MAX_BATCH_ITEMS}`);
  }
  let current: T[] = [];
  return {
    add(item) {
      current.push(item);
      if (current.length < size) return null;
      const full = current;
      current = [];
      return full;
    },
    flush() {
      if (current.length === 0) return null;
      const last = current;
      current = [];
      return last;
    },
  };
}
