export interface AuthThrottleOptions {
  /** Wrong keys an address may present per window before it gets 429. */
  limit: number;
  windowSeconds: number;
  /** Addresses tracked at once; the oldest window is forgotten first. */
  maxAddresses?: number;
  /** Milliseconds (default Date.now). */
  clock?: () => number;
}

/** Defaults for `serve`: far above a misconfigured client's retries, far below a guessing loop. */
export const AUTH_THROTTLE_DEFAULTS: AuthThrottleOptions = { limit: 60, windowSeconds: 60 };

export interface AuthThrottle {
  /**
   * Counts one wrong key from `address`. Returns null while the address is within its limit,
   * else the whole seconds until its window ends (the `Retry-After`).
   */
  fail(address: string): number | null;
}

/**
 * Fixed windows of wrong-key counts per client address, so key guessing is throttled (429)
 * while a valid key keeps working from any address: many partners' servers can share one
 * NAT address, and one of them sending a stale key must not lock the others out.
 */
export function createAuthThrottle(options: AuthThrottleOptions): AuthThrottle {
  const clock = options.clock ?? Date.now;
  const windowMs = options.windowSeconds * 1000;
  const maxAddresses = options.maxAddresses ?? 10_000;
  // Insertion order is window start order (a new window re-inserts), so the first is oldest.
  const windows = new Map<string, { start: number; count: number }>();

  return {
    fail(address) {
      const now = clock();
      let entry = windows.get(address);
      if (!entry || now - entry.start >= windowMs) {
        windows.delete(address);
        entry = { start: now, count: 0 };
        windows.set(address, entry);
        if (windows.size > maxAddresses) {
          const oldest = windows.keys().next().value;
          if (oldest !== undefined) windows.delete(oldest);
        }
      }
      entry.count += 1;
      if (entry.count <= options.limit) return null;
      return Math.max(1, Math.ceil((entry.start + windowMs - now) / 1000));
    },
  };
}
