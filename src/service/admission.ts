import { ServiceError } from './service-error.js';

export interface AdmissionOptions {
  /** Requests that run at once; the rest wait in the queue. */
  maxInFlight: number;
  /** Requests that may wait; one more is shed at once. */
  maxQueue: number;
  /** A request that waited longer than this (ms) is shed when its turn comes. */
  maxWaitMs: number;
  /** Seconds a shed request is told to wait (`Retry-After`). */
  retryAfterSeconds: number;
  /** Milliseconds (default Date.now). */
  clock?: () => number;
}

/** Defaults for `serve`: a handful in flight, a queue deeper than a busy client pool. */
export const ADMISSION_DEFAULTS: AdmissionOptions = {
  maxInFlight: 4,
  maxQueue: 512,
  maxWaitMs: 5 * 1000, // 5 s: well inside a client's request timeout
  retryAfterSeconds: 1,
};

/** One admitted request: call `leave` exactly once when it is answered or gone. */
export type Leave = () => void;

export interface Admission {
  /**
   * Asks for a slot. `onTurn` is called once: with a `leave` function when the request may
   * run, or with a 503 `service_unavailable` error when it is shed. `cancel` withdraws a
   * request still waiting (its client went away).
   */
  enter(onTurn: (error: ServiceError | null, leave?: Leave) => void): { cancel(): void };
  /** Requests running and waiting, for tests and the bench. */
  stats(): { inFlight: number; queued: number; shed: number };
}

interface Waiter {
  since: number;
  onTurn: (error: ServiceError | null, leave?: Leave) => void;
  cancelled: boolean;
}

/**
 * A bounded queue in front of the API routes. The event loop is the scarce resource: a
 * handler that reads SQLite runs to the end once started, so without a queue 200 requests
 * read in one poll phase run back to back, and `/ping` waits behind all of them. Here a
 * waiting request is admitted in `setImmediate`, at most `maxInFlight` per turn of the loop,
 * so every few requests the loop passes the poll phase again and the exempt routes (`/ping`,
 * `/health`) are answered in between. Past `maxQueue`, or after `maxWaitMs` in line, a request
 * is shed with 503 and `Retry-After` rather than left to time out.
 */
export function createAdmission(options: AdmissionOptions): Admission {
  const clock = options.clock ?? Date.now;
  const queue: Waiter[] = [];
  let head = 0;
  let inFlight = 0;
  let shed = 0;
  let scheduled = false;

  const shedError = (why: string): ServiceError => {
    shed += 1;
    return new ServiceError('service_unavailable', `the service is busy (${why}); retry after ${options.retryAfterSeconds} s`, {
      headers: { 'retry-after': String(options.retryAfterSeconds) },
    });
  };

  const waiting = (): number => queue.length - head;

  const slot = (): Leave => {
    inFlight += 1;
    let left = false;
    return () => {
      if (left) return;
      left = true;
      inFlight -= 1;
      schedule();
    };
  };

  function schedule(): void {
    if (scheduled || waiting() === 0 || inFlight >= options.maxInFlight) return;
    scheduled = true;
    setImmediate(admitNext);
  }

  function admitNext(): void {
    scheduled = false;
    const now = clock();
    while (head < queue.length && inFlight < options.maxInFlight) {
      const waiter = queue[head] as Waiter;
      queue[head] = undefined as unknown as Waiter;
      head += 1;
      if (waiter.cancelled) continue;
      if (now - waiter.since > options.maxWaitMs) {
        waiter.onTurn(shedError('waited too long'));
        continue;
      }
      // Every free slot is filled in this turn; the requests then run back to back, at most
      // maxInFlight of them, before the poll phase comes round again.
      waiter.onTurn(null, slot());
    }
    if (head > 1024 && head * 2 > queue.length) {
      queue.splice(0, head);
      head = 0;
    }
    schedule();
  }

  return {
    enter(onTurn) {
      if (inFlight < options.maxInFlight && waiting() === 0) {
        onTurn(null, slot());
        return { cancel() {} };
      }
      if (waiting() >= options.maxQueue) {
        onTurn(shedError('queue full'));
        return { cancel() {} };
      }
      const waiter: Waiter = { since: clock(), onTurn, cancelled: false };
      queue.push(waiter);
      schedule();
      return {
        cancel() {
          waiter.cancelled = true;
        },
      };
    },
    stats: () => ({ inFlight, queued: waiting(), shed }),
  };
}
