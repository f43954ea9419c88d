import { isUnreadError } from '../../rules/unread.js';
import type { ScanSummary } from '../../scan/index.js';
import { formatSeconds } from '../../util/seconds.js';
import { plural, reasonTotal } from '../format/vocabulary.js';

/** `a 3, b 1` from counts, largest first; '' when empty. */
export function formatCounts(counts: Record<string, number>): string {
  return Object.entries(counts)
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
    .map(([key, count]) => `${key} ${count}`)
    .join(', ');
}

const total = (counts: Record<string, number>): number => Object.values(counts).reduce((a, b) => a + b, 0);

/** The reasons the service would give, in the contract's order. */
const WOULD_REJECT = ['missing_coordinates', 'missing_taken_at'] as const;

/** Error codes of files that could not be read at all (scan's rule, src/rules/unread.ts). */
const splitErrors = (summary: ScanSummary): { unreadable: Record<string, number>; damaged: Record<string, number> } => {
  const unreadable: Record<string, number> = {};
  const damaged: Record<string, number> = {};
  for (const [code, count] of Object.entries(summary.errors))
    (isUnreadError(code) ? unreadable : damaged)[code] = count;
  return { unreadable, damaged };
};

/** The human-readable end-of-scan summary (one line per fact, stable labels). */
export function formatScanSummary(summary: ScanSummary, options: { elapsedMs: number; interrupted?: boolean }): string {
  const { unreadable, damaged } = splitErrors(summary);
  const skipped = total(summary.skipped);
  const warnings = total(summary.warnings);
  const withCounts = (n: number, counts: Record<string, number>): string =>
    n > 0 ? `${n} (${formatCounts(counts)})` : '0';
  const repeats = summary.duplicates.files === 1 ? 'repeats' : 'repeat';
  const lines = [
    `${options.interrupted ? 'Scan interrupted after' : 'Scanned'} ${plural(summary.files, 'file')} in ${formatSeconds(options.elapsedMs)} ` +
      `(${(summary.bytes / 1e6).toFixed(1)} MB, ${summary.cached} from the scan cache)`,
    `  files found:        ${summary.files}`,
    `  media:              ${summary.media} (photos ${summary.photos}, videos ${summary.videos})`,
    `  unreadable:         ${withCounts(total(unreadable), unreadable)}`,
    `  damaged:            ${withCounts(total(damaged), damaged)}`,
    `  skipped:            ${withCounts(skipped, summary.skipped)}`,
    `  would be rejected:  ${reasonTotal(summary.would_reject, WOULD_REJECT)}`,
    `  duplicates:         ${plural(summary.duplicates.files, 'file')} ${repeats} content already seen ` +
      `(${plural(summary.duplicates.distinct_ids, 'distinct content')})`,
  ];
  if (warnings > 0) lines.push(`  warnings:           ${withCounts(warnings, summary.warnings)}`);
  return lines.join('\n');
}
