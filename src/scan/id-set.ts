/**
 * A set of content ids kept as the first 64 bits of their SHA-256, in one open-addressing
 * table of 32-bit words: 16 bytes per id at worst (load <= 1/2), about 16 MB for a million
 * files, where a Set of hex strings would take ~100 MB. Two different files share 64 bits
 * with probability ~n^2/2^65 (about 3e-8 for a million): fine for a summary count.
 */
export interface IdSet {
  /** Adds an id; false when it was already there. */
  add(id: string): boolean;
  readonly size: number;
}

/** Creates an empty id set. Ids that are not `sha256:<hex>` are hashed by their text. */
export function createIdSet(initialCapacity = 1024): IdSet {
  let capacity = 1;
  while (capacity < initialCapacity) capacity *= 2;
  let table = new Uint32Array(capacity * 2);
  let size = 0;

  const insert = (hi: number, lo: number): boolean => {
    const mask = capacity - 1;
    let slot = (lo ^ Math.imul(hi, 0x9e3779b1)) & mask;
    for (;;) {
      const h = table[slot * 2]!;
      const l = table[slot * 2 + 1]!;
      if (h === 0 && l === 0) {
        table[slot * 2] = hi;
        table[slot * 2 + 1] = lo;
        return true;
      }
      if (h === hi && l === lo) return false;
      slot = (slot + 1) & mask;
    }
  };

  const grow = (): void => {
    const old = table;
    capacity *= 2;
    table = new Uint32Array(capacity * 2);
    for (let i = 0; i < old.length; i += 2) {
      if (old[i] !== 0 || old[i + 1] !== 0) insert(old[i]!, old[i + 1]!);
    }
  };

  return {
    add(id) {
      let [hi, lo] = keyOf(id);
      if (hi === 0 && lo === 0) lo = 1; // (0,0) marks an empty slot
      if ((size + 1) * 2 > capacity) grow();
      const added = insert(hi, lo);
      if (added) size += 1;
      return added;
    },
    get size() {
      return size;
    },
  };
}

const SHA256_ID = /^sha256:([0-9a-f]{16})/;

function keyOf(id: string): [number, number] {
  const match = SHA256_ID.exec(id);
  if (match) {
    const hex = match[1]!;
    return [Number.parseInt(hex.slice(0, 8), 16) >>> 0, Number.parseInt(hex.slice(8, 16), 16) >>> 0];
  }
  // FNV-1a twice with different seeds: only for ids some other scanner produced.
  let a = 0x811c9dc5;
  let b = 0x01000193 ^ 0x5bd1e995;
  for (let i = 0; i < id.length; i++) {
    const c = id.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x5bd1e995);
  }
  return [a >>> 0, b >>> 0];
}
