import { ServiceError } from './service-error.js';

export interface AdmissionOptions {
  /** Requests that run at once; the rest wait in the queue. */
  maxInFlight: number;
  /**
   * Requests that may start in one turn of the event loop (default: maxInFlight). A request
   * that finishes inside the turn frees its slot but not its start, so the turn ends and the
   * loop reads its sockets again (`/ping` among them) after at most this many handlers.
   */
  startsPerTurn?: number;
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
 * handler that reads SQLite runs to the end once started, so 200 requests read in one poll
 * phase would run back to back, and `/ping`, read in the same phase, would wait behind all
 * of them. Counting requests in flight is not enough: a synchronous handler finishes (and
 * frees its slot) before the next socket is read, so a whole poll phase of requests would
 * still run one after another. So at most `startsPerTurn` requests start per turn of the
 * loop; the rest wait and are admitted in `setImmediate` on the next turns, and the exempt
 * routes (`/ping`, `/health`), read in every poll phase, are answered in between. Past
 * `maxQueue`, or after `maxWaitMs` in line, a request is shed with 503 and `Retry-After`
 * rather than left to time out.
 */
export function createAdmission(options: AdmissionOptions): Admission {
  const clock = options.clock ?? Date.now;
  const startsPerTurn = Math.max(1, options.startsPerTurn ?? options.maxInFlight);
  const queue: Waiter[] = [];
  let head = 0;
  let inFlight = 0;
  let shed = 0;
  /** Requests started since the last turn began; reset in setImmediate, once per turn. */
  let startedThisTurn = 0;
  let turnScheduled = false;

  const shedError = (why: string): ServiceError => {
    shed += 1;
    return new ServiceError(
      'service_unavailable',
      `the service is busy (${why}); retry after ${options.retryAfterSeconds} s`,
      {
        headers: { 'retry-after': String(options.retryAfterSeconds) },
      },
    );
  };

  const waiting = (): number => queue.length - head;
  const canStart = (): boolean => inFlight < options.maxInFlight && startedThisTurn < startsPerTurn;

  /** The next turn of the loop resets the starts and admits waiting requests. */
  function nextTurnSoon(): void {
    if (turnScheduled) return;
    turnScheduled = true;
    setImmediate(nextTurn);
  }

  function nextTurn(): void {
    turnScheduled = false;
    startedThisTurn = 0;
    admitWaiting();
  }

  const start = (): Leave => {
    inFlight += 1;
    startedThisTurn += 1;
    nextTurnSoon();
    let left = false;
    return () => {
      if (left) return;
      left = true;
      inFlight -= 1;
      if (waiting() > 0) nextTurnSoon();
    };
  };

  function admitWaiting(): void {
    const now = clock();
    while (head < queue.length && canStart()) {
      const waiter = queue[head] as Waiter;
      queue[head] = undefined as unknown as Waiter;
      head += 1;
      if (waiter.cancelled) continue;
      if (now - waiter.since > options.maxWaitMs) {
        waiter.onTurn(shedError('waited too long'));
        continue;
      }
      // The admitted requests run back to back once this callback returns, at most
      // startsPerTurn of them, before the poll phase comes round again.
      waiter.onTurn(null, start());
    }
    if (head > 1024 && head * 2 > queue.length) {
      queue.splice(0, head);
      head = 0;
    }
  }

  return {
    enter(onTurn) {
      if (waiting() === 0 && canStart()) {
        onTurn(null, start());
        return { cancel() {} };
      }
      if (waiting() >= options.maxQueue) {
        onTurn(shedError('queue full'));
        return { cancel() {} };
      }
      const waiter: Waiter = { since: clock(), onTurn, cancelled: false };
      queue.push(waiter);
      // Admitted on a later turn: when this turn's starts are spent, or when a slot frees.
      if (inFlight < options.maxInFlight) nextTurnSoon();
      return {
        cancel() {
          waiter.cancelled = true;
        },
      };
    },
    stats: () => ({ inFlight, queued: waiting(), shed }),
  };
}
