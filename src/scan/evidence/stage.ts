import type { ScanEvent, ScanRecord } from '../types.js';
import { classifyOrigin, DEFAULT_INCLUDED, type OriginClass } from './origin.js';
import { createPairing, type PairRule, type PairView, type Paired, type Pairing } from './pairing.js';

/**
 * The scan's evidence stage: every record leaves the scan with its origin (origin.ts) and,
 * when the run's `--include` does not name its class, `left_out` set; the second file of a
 * pair (pairing.ts) is collapsed into the first unless its class is included. Records pass in
 * the batches they come in; only a file that may be the second of a pair waits, within the
 * pairing's window, and the rest wait at the end of the stream. What is remembered lives as
 * long as the stream (one sync's batches pair with each other), or as long as the run's
 * `memory` when one is given (`sync --watch`: a change pairs with a still read before it).
 */

type RecordEvent = Extract<ScanEvent, { type: 'record' }>;

export interface EvidenceOptions {
  /** The classes sent (default: own and unknown). */
  included?: ReadonlySet<OriginClass>;
  signal?: AbortSignal;
  /** The pairing memory: the stream's own (createEvidenceMemory), or the run's, shared by its scans. */
  memory: EvidenceMemory;
}

/**
 * What a run's scans remember of each other for pairing: the stills and originals they read.
 * What waits for a partner is still let go at the end of each scan.
 */
export interface EvidenceMemory {
  readonly pairing: Pairing<RecordEvent>;
  /** The path a partner is named by, from its absolute path: the run's rule, whatever roots a scan had. */
  readonly shown: (absPath: string) => string;
}

export function createEvidenceMemory(options: { shown?: (absPath: string) => string } = {}): EvidenceMemory {
  return {
    shown: options.shown ?? ((absPath) => absPath),
    pairing: createPairing<RecordEvent>({
      // Plain values copied out of the record: a remembered still keeps none of its metadata.
      view: ({ record }): PairView => {
        const media = record.media!;
        return {
          path: record.absPath,
          mediaType: media.media_type === 'video' ? 'video' : 'photo',
          durationSeconds: media.duration_seconds,
          takenAt: media.taken_at,
          contentId: record.source?.evidence?.content_id,
        };
      },
    }),
  };
}

/** How the summary names what collapsed a pair. */
const PAIR_SIGNALS: Record<PairRule, string> = {
  content_identifier: 'content identifier',
  live_photo_stem: 'name and time',
  edited_copy_name: 'file name',
};

/** Gives each record its origin; pairs collapse unless both pair classes are included. */
export async function* withOrigins(
  batches: AsyncIterable<ScanEvent[]>,
  options: EvidenceOptions,
): AsyncGenerator<ScanEvent[]> {
  const included = options.included ?? DEFAULT_INCLUDED;
  const pairs = !included.has('live_photo_video') || !included.has('edited_copy');
  // The pairing holds the events themselves: a file let out is passed on as it came.
  const { pairing, shown } = options.memory;
  const settle = ({ item, pair }: Paired<RecordEvent>): ScanEvent => {
    const origin = item.record.origin!;
    if (pair !== null) {
      origin.pair = { ...pair, partner: shown(pair.partner) };
      if (!included.has(pair.origin)) {
        origin.origin = pair.origin;
        origin.rule = pair.rule;
        origin.signal = PAIR_SIGNALS[pair.rule];
        origin.left_out = pair.origin;
      }
    }
    return item;
  };
  try {
    for await (const batch of batches) {
      const out: ScanEvent[] = [];
      for (const event of batch) {
        if (event.type !== 'record' || event.record.media === null) {
          out.push(event);
          continue;
        }
        const record = event.record;
        const media = record.media!;
        const decided = classifyOrigin({
          path: record.path,
          archive: record.archive,
          signals: record.source?.evidence,
          hasCamera: media.device_make !== null || media.device_model !== null,
        });
        const left = included.has(decided.origin) ? null : decided.origin;
        record.origin = {
          origin: decided.origin,
          rule: decided.rule,
          signal: decided.signal,
          pair: null,
          left_out: left,
        };
        // A file left out by its origin pairs with nothing: its partner stands alone.
        if (left !== null || !pairs) out.push(event);
        else for (const paired of pairing.push(event)) out.push(settle(paired));
      }
      if (out.length > 0) yield out;
    }
    const rest = pairing.flush().map(settle);
    if (options.signal?.aborted) return; // what waited is dropped like any read after Ctrl-C
    if (rest.length > 0) yield rest;
  } finally {
    // Nothing waits past this scan, however it ended: a run's memory keeps only what was read.
    pairing.flush();
  }
}

/** Whether a record is sent: media with no `left_out` (a record before the stage: sent). */
export const isSent = (record: Pick<ScanRecord, 'media' | 'origin'>): boolean =>
  record.media !== null && (record.origin?.left_out ?? null) === null;
