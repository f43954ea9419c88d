/** A stream already running before its consumer arrives; `close()` stops it if none ever does. */
export interface HeadStart<T> extends AsyncIterable<T> {
  /** Stops pulling, ends the source (its `return()`), and drops what is held. */
  close(): Promise<void>;
}

/**
 * Starts pulling `source` now and holds up to `limit` items until a consumer iterates: a
 * sync scans (threads boot, the first files are read) while it is still connecting to the
 * service, instead of after. Past `limit` it waits, so memory stays bounded; once consumed
 * it passes items straight through. Iterate it once.
 */
export function startAhead<T>(source: AsyncIterable<T>, options: { limit: number }): HeadStart<T> {
  const upstream = source[Symbol.asyncIterator]();
  const held: T[] = [];
  let ended = false;
  let failure: { error: unknown } | null = null;
  let closed = false;
  let wake: (() => void) | null = null;
  const notify = (): void => {
    const waiting = wake;
    wake = null;
    waiting?.();
  };
  const waitForChange = (): Promise<void> => new Promise((resolve) => (wake = resolve));

  // Pulls while there is room; stops at the end, on an error, or when closed.
  const pump = (async (): Promise<void> => {
    try {
      while (!closed) {
        if (held.length >= options.limit) {
          await waitForChange();
          continue;
        }
        const next = await upstream.next();
        if (next.done) break;
        held.push(next.value);
        notify();
      }
    } catch (error) {
      failure = { error };
    } finally {
      ended = true;
      notify();
    }
  })();

  const close = async (): Promise<void> => {
    if (closed) return;
    closed = true;
    notify();
    await pump;
    held.length = 0;
    if (failure === null) await upstream.return?.(undefined);
  };

  return {
    close,
    async *[Symbol.asyncIterator]() {
      try {
        for (;;) {
          if (held.length > 0) {
            const item = held.shift() as T;
            notify();
            yield item;
            continue;
          }
          if (ended) {
            if (failure !== null) throw failure.error;
            return;
          }
          await waitForChange();
        }
      } finally {
        await close();
      }
    },
  };
}
