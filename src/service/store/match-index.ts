/**
 * Which of a user's asset ids are matched, and to which event, kept in memory by the SQLite
 * store. Most items of a batch match nothing, and each of them would otherwise cost an index
 * probe to learn whether an earlier match must go; with the index they cost a map lookup.
 *
 * It is only ever read inside the store's write transaction, and only while no other
 * connection has committed since it was filled: `version()` (SQLite's `PRAGMA
 * data_version`, which changes exactly when another connection commits) is checked on every
 * use, and any change empties it. A user with more matches than fit is not kept (the store
 * asks the database instead), and users are evicted least recently used first.
 */
export interface MatchIndex {
  /**
   * The user's matches (asset id -> event id), to read and then update in step with the
   * transaction's writes; null when the user is not kept. Call inside the write transaction.
   */
  of(userId: string): Map<string, number> | null;
  /** Drops the user's entry (a transaction that wrote through it failed). */
  forget(userId: string): void;
}

export interface MatchIndexOptions {
  /** Changes whenever another connection commits (PRAGMA data_version). */
  version(): number;
  /** The user's matches, at most `limit` of them (a longer answer means "too many to keep"). */
  load(userId: string, limit: number): Array<[string, number]>;
  /** Asset ids kept across all users (default 250,000: some 30 MB). */
  maxIds?: number;
}

const DEFAULT_MAX_IDS = 250_000;

/** Creates an empty index. */
export function createMatchIndex(options: MatchIndexOptions): MatchIndex {
  const maxIds = options.maxIds ?? DEFAULT_MAX_IDS;
  /** In least-recently-used order: a Map iterates in insertion order. */
  const users = new Map<string, Map<string, number>>();
  /**
   * Users found to have more matches than fit: asked of the database without loading them
   * again, for the life of the process (matches are rarely removed, so such a user seldom
   * fits again; one id per such user).
   */
  const tooMany = new Set<string>();
  let version = options.version();

  const kept = (): number => {
    let ids = 0;
    for (const matches of users.values()) ids += matches.size;
    return ids;
  };

  return {
    of(userId) {
      const now = options.version();
      if (now !== version) {
        users.clear();
        version = now;
      }
      if (tooMany.has(userId)) return null;
      const cached = users.get(userId);
      if (cached !== undefined) {
        users.delete(userId);
        // A user whose matches grew past what fits is asked of the database from now on.
        if (cached.size > maxIds) {
          tooMany.add(userId);
          return null;
        }
        users.set(userId, cached);
        return cached;
      }
      const rows = options.load(userId, maxIds + 1);
      if (rows.length > maxIds) {
        tooMany.add(userId);
        return null;
      }
      const matches = new Map(rows);
      users.set(userId, matches);
      // Evict the least recently used users until the kept ids fit again (never this one).
      let total = kept();
      for (const [other, theirs] of users) {
        if (total <= maxIds || other === userId) break;
        users.delete(other);
        total -= theirs.size;
      }
      return matches;
    },
    forget(userId) {
      users.delete(userId);
    },
  };
}
