/**
 * A bounded async queue between a producer and one consumer. `push` resolves once there is
 * room, so a fast producer (the walk) waits for a slow consumer (hashing) and memory stays flat.
 */
export interface Channel<T> extends AsyncIterable<T> {
  /** Queues a value; resolves when the queue is below its limit again. */
  push(value: T): Promise<void>;
  /** Queues a value without waiting (for callbacks that cannot await); the limit still applies to `push`. */
  pushNow(value: T): void;
  /** No more values: the consumer ends after draining what is queued. */
  close(): void;
  /** Ends the consumer with an error after what is queued. */
  fail(error: unknown): void;
  /** Resolves when the queue holds fewer than `limit` values. */
  room(): Promise<void>;
  readonly size: number;
}

/** Creates a channel holding at most about `limit` values. */
export function createChannel<T>(options: { limit: number }): Channel<T> {
  const queue: T[] = [];
  let head = 0;
  let closed = false;
  let failure: { error: unknown } | null = null;
  let wakeConsumer: (() => void) | null = null;
  let roomWaiters: (() => void)[] = [];

  const size = (): number => queue.length - head;
  const notifyConsumer = (): void => {
    const wake = wakeConsumer;
    wakeConsumer = null;
    wake?.();
  };
  const notifyRoom = (): void => {
    if (size() >= options.limit || roomWaiters.length === 0) return;
    const waiters = roomWaiters;
    roomWaiters = [];
    for (const wake of waiters) wake();
  };
  const room = (): Promise<void> =>
    size() < options.limit || closed ? Promise.resolve() : new Promise((resolve) => roomWaiters.push(resolve));

  return {
    get size() {
      return size();
    },
    pushNow(value) {
      if (closed) return;
      queue.push(value);
      notifyConsumer();
    },
    async push(value) {
      this.pushNow(value);
      await room();
    },
    room,
    close() {
      closed = true;
      notifyConsumer();
      for (const wake of roomWaiters.splice(0)) wake();
    },
    fail(error) {
      if (closed) return;
      failure = { error };
      this.close();
    },
    async *[Symbol.asyncIterator]() {
      for (;;) {
        if (head < queue.length) {
          const value = queue[head] as T;
          head += 1;
          // Compact now and then instead of shifting on every read (O(n) each).
          if (head > 1024 && head * 2 > queue.length) {
            queue.splice(0, head);
            head = 0;
          }
          notifyRoom();
          yield value;
          continue;
        }
        if (closed) {
          if (failure) throw failure.error;
          return;
        }
        await new Promise<void>((resolve) => {
          wakeConsumer = resolve;
        });
      }
    },
  };
}
