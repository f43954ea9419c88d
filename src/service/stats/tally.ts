/** Counts values and remembers, per value, the start of its latest event. */
export interface Tally {
  add(value: string, startsAtMs: number): void;
  /**
   * The value with the highest count; ties go to the value whose latest event starts last,
   * then (same instant, e.g. two teams of one game) to the alphabetically first. Null when empty.
   */
  top(): string | null;
}

/** Creates an empty tally. */
export function createTally(): Tally {
  const counts = new Map<string, { count: number; latestMs: number }>();
  return {
    add(value, startsAtMs) {
      const entry = counts.get(value);
      if (entry === undefined) counts.set(value, { count: 1, latestMs: startsAtMs });
      else {
        entry.count += 1;
        if (startsAtMs > entry.latestMs) entry.latestMs = startsAtMs;
      }
    },
    top() {
      let best: string | null = null;
      let bestCount = 0;
      let bestLatest = -Infinity;
      for (const [value, { count, latestMs }] of counts) {
        const better =
          count > bestCount ||
          (count === bestCount && latestMs > bestLatest) ||
          (count === bestCount && latestMs === bestLatest && best !== null && value < best);
        if (better) {
          best = value;
          bestCount = count;
          bestLatest = latestMs;
        }
      }
      return best;
    },
  };
}
