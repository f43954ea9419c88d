import { setMaxListeners } from 'node:events';
import type { IngestResponse, MediaMetadata } from '../contract/index.js';
import { InterruptedError, toCamrollError, type CamrollError } from '../errors.js';
import type { ScanRecord } from '../scan/index.js';
import { createBatcher } from './batcher.js';
import { createCopyChooser } from './dedupe.js';
import { fingerprintMedia, type BatchOutcome, type Journal, type JournalItem } from './journal.js';
import { createSyncTally, type SyncTally } from './summary.js';

/** What the pipeline reads: the scanner's event stream (records, skip notices, warnings). */
export type SyncInput =
  | { type: 'record'; record: Pick<ScanRecord, 'path' | 'media' | 'error'> }
  | { type: 'skipped'; reason: string; path: string }
  | { type: 'warning'; code: string; path: string; message: string };

/** One item on its way: what is sent, where it came from, its journal fingerprint. */
export interface PendingItem {
  media: MediaMetadata;
  path: string;
  fingerprint: Buffer;
}

/** Facts the pipeline reports as they happen (progress, report file). */
export type PipelineEvent =
  | { type: 'file'; path: string; ok: boolean }
  | { type: 'scan_error'; path: string; code: string; message: string }
  | { type: 'notice'; kind: 'skipped' | 'warning'; path: string; code: string; message: string }
  | { type: 'queued'; items: number }
  | { type: 'answered'; items: readonly PendingItem[]; response: IngestResponse }
  | { type: 'failed'; items: readonly PendingItem[]; error: CamrollError }
  | { type: 'abandoned'; items: readonly PendingItem[] };

/** The journal operations the pipeline needs (a dry run passes a no-op one). */
export type JournalPort = Pick<Journal, 'answerFor' | 'beginBatch' | 'completeBatch' | 'failBatch' | 'abandonBatch'>;

export interface PipelineOptions {
  /** The scanner's events in its batches: one async step per batch, not per file. */
  input: AsyncIterable<readonly SyncInput[]>;
  journal: JournalPort;
  passId: number;
  /** Sends one batch; retries are the client's business, a throw means the batch failed. */
  send(media: MediaMetadata[], signal: AbortSignal): Promise<IngestResponse>;
  batchSize: number;
  concurrency: number;
  /** Resend ids the journal already holds (`--full`). */
  full: boolean;
  signal: AbortSignal;
  onEvent?: (event: PipelineEvent) => void;
  /** The accumulator to count into (the caller may read it live for progress). */
  summary?: SyncTally;
}

export interface PipelineResult {
  summary: SyncTally;
  interrupted: boolean;
}

/**
 * scan stream -> drop unreadable files -> choose one copy per id (the journal's, when it
 * answered one) -> skip ids the journal already holds -> batches -> at most `concurrency`
 * sends in flight. The scan is pulled only while a send slot is free, so memory stays bounded
 * by concurrency x batch size (and the copies held, see createCopyChooser).
 */
/** Node's default, and the abort listeners one send may hold (the request, a retry wait, its own). */
const DEFAULT_MAX_LISTENERS = 10;
const LISTENERS_PER_SEND = 4;

export async function runPipeline(options: PipelineOptions): Promise<PipelineResult> {
  const summary = options.summary ?? createSyncTally();
  const emit = options.onEvent ?? ((): void => undefined);
  // Which copy of each id is sent: the one the journal answered, whatever order the files come in.
  const answer = (item: PendingItem) => options.journal.answerFor({ id: item.media.id, fingerprint: item.fingerprint });
  const copies = createCopyChooser<PendingItem>({ answer: options.full ? null : answer });
  const batcher = createBatcher<PendingItem>(options.batchSize);
  const inFlight = new Set<Promise<void>>();
  // Sends get their own controller so an interruption aborts them even mid-retry.
  const controller = new AbortController();
  // Every request in flight (and every retry wait) listens on it: room for all of them, so
  // a high --concurrency prints no MaxListenersExceededWarning, while a real leak still would.
  setMaxListeners(Math.max(DEFAULT_MAX_LISTENERS, options.concurrency * LISTENERS_PER_SEND), controller.signal);
  const onAbort = (): void => controller.abort(options.signal.reason);
  if (options.signal.aborted) onAbort();
  else options.signal.addEventListener('abort', onAbort, { once: true });

  // A journal write that fails is fatal: stop sending rather than lose track of outcomes.
  let fatal: unknown = null;
  const sendBatch = async (batchId: number, items: PendingItem[]): Promise<void> => {
    let response: IngestResponse;
    try {
      response = await options.send(
        items.map((i) => i.media),
        controller.signal,
      );
    } catch (error) {
      if (controller.signal.aborted) {
        options.journal.abandonBatch(batchId);
        summary.batchAbandoned(items.length);
        emit({ type: 'abandoned', items });
        return;
      }
      const failure = toCamrollError(error);
      options.journal.failBatch(batchId, `${failure.code}: ${failure.message}`);
      summary.batchFailed(items.length);
      emit({ type: 'failed', items, error: failure });
      return;
    }
    // One transaction per response: a kill before it re-sends this batch, never half of it.
    const reasons = new Map(response.rejected.map((r) => [r.id, r.reason]));
    const accepted: JournalItem[] = [];
    const rejected: BatchOutcome['rejected'] = [];
    for (const item of items) {
      const reason = reasons.get(item.media.id);
      const entry = { id: item.media.id, fingerprint: item.fingerprint };
      if (reason) rejected.push({ ...entry, reason });
      else accepted.push(entry);
    }
    options.journal.completeBatch(batchId, { accepted, rejected });
    summary.batchAnswered(items.length, response);
    emit({ type: 'answered', items, response });
  };

  const dispatch = async (items: PendingItem[]): Promise<void> => {
    while (inFlight.size >= options.concurrency) await Promise.race(inFlight);
    // Never sent, never journaled: the next run finds these files new, as it finds the ones
    // not scanned yet. `pending` counts only what the journal holds as sent and unanswered,
    // so the summary's count is the one the next run's resume notice gives.
    if (controller.signal.aborted) return;
    const batchId = options.journal.beginBatch(
      options.passId,
      items.map((i) => ({ id: i.media.id, fingerprint: i.fingerprint })),
    );
    summary.batchSending();
    const task = sendBatch(batchId, items)
      .catch((error: unknown) => {
        fatal = error;
        controller.abort(error);
      })
      .finally(() => inFlight.delete(task));
    inFlight.add(task);
  };

  try {
    scan: for await (const events of options.input) {
      for (const event of events) {
        if (controller.signal.aborted) break scan;
        const full = take(event);
        if (full) await dispatch(full);
      }
    }
    // Copies held for an answered copy that never came: their metadata changed, send them.
    for (const item of copies.drain()) {
      if (controller.signal.aborted) break;
      const full = queue(item);
      if (full) await dispatch(full);
    }
    const last = batcher.flush();
    if (last) await dispatch(last);
  } catch (error) {
    // The scan stops with an InterruptedError when the run is aborted: an interruption with
    // its counts (the caller prints the summary), not a failure.
    if (!(controller.signal.aborted && error instanceof InterruptedError)) throw error;
  } finally {
    await Promise.allSettled([...inFlight]);
    options.signal.removeEventListener('abort', onAbort);
  }
  if (fatal !== null) throw fatal;
  return { summary, interrupted: controller.signal.aborted };

  /** One scanner event: counted, deduplicated, skipped when answered, batched; returns a batch it filled. */
  function take(event: SyncInput): PendingItem[] | null {
    if (event.type !== 'record') {
      emit({
        type: 'notice',
        kind: event.type,
        path: event.path,
        code: event.type === 'skipped' ? event.reason : event.code,
        message: event.type === 'skipped' ? event.reason : event.message,
      });
      return null;
    }
    const { record } = event;
    if (!record.media) {
      summary.file('error', record.error?.code);
      emit({ type: 'file', path: record.path, ok: false });
      emit({
        type: 'scan_error',
        path: record.path,
        code: record.error?.code ?? 'unreadable',
        message: record.error?.message ?? 'no metadata',
      });
      return null;
    }
    summary.file('media');
    emit({ type: 'file', path: record.path, ok: true });
    const media = record.media as MediaMetadata;
    const choice = copies.offer(media.id, () => ({ media, path: record.path, fingerprint: fingerprintMedia(media) }));
    for (let i = 0; i < choice.duplicates; i += 1) summary.duplicate();
    if (choice.answered > 0) summary.alreadySent();
    return choice.send === null ? null : queue(choice.send);
  }

  /** One item to send: batched; returns a batch it filled. */
  function queue(item: PendingItem): PendingItem[] | null {
    emit({ type: 'queued', items: 1 });
    return batcher.add(item);
  }
}
