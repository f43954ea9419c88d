import type { RecordOrigin } from '../types.js';
import type { OriginClass } from './origin.js';

/** Files of one class not sent, and the signals that decided them (`WhatsApp Images` 12, `file name` 3). */
export interface LeftOutCount {
  files: number;
  signals: Record<string, number>;
}

/** What a run left out or collapsed, by class (only classes that occurred). */
export type LeftOutCounts = Partial<Record<OriginClass, LeftOutCount>>;

/** Counts one record's origin into `counts` when it is not sent. */
export function countLeftOut(counts: LeftOutCounts, origin: RecordOrigin | undefined): void {
  if (!origin || origin.left_out === null) return;
  const count = (counts[origin.left_out] ??= { files: 0, signals: {} });
  count.files += 1;
  count.signals[origin.signal] = (count.signals[origin.signal] ?? 0) + 1;
}

/** The signal that decided most files of a class (ties: the name first in order). */
export function leadingSignal(count: LeftOutCount): string {
  return Object.entries(count.signals).sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))[0]?.[0] ?? '';
}

/** The pair classes: their files are collapsed into a partner, the rest are left out. */
export const COLLAPSED: ReadonlySet<OriginClass> = new Set(['live_photo_video', 'edited_copy']);

/** A deep copy, for a summary read while counting goes on. */
export function copyLeftOut(counts: LeftOutCounts): LeftOutCounts {
  return Object.fromEntries(
    Object.entries(counts).map(([key, count]) => [key, { files: count.files, signals: { ...count.signals } }]),
  );
}
