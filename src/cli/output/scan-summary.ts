import { isUnreadError } from '../../rules/unread.js';
import type { ScanSummary } from '../../scan/index.js';
import { formatSeconds } from '../../util/seconds.js';
import { plural, reasonTotal } from '../format/vocabulary.js';
import { hangingLines } from '../format/width.js';
import { leftOutLines } from '../format/origin.js';

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

/**
 * The human-readable end-of-scan summary (one line per fact, stable labels). With a `width`
 * (a terminal's), a long value wraps at words under its own start.
 */
export function formatScanSummary(
  summary: ScanSummary,
  options: { elapsedMs: number; interrupted?: boolean; width?: number | null },
): string {
  const { unreadable, damaged } = splitErrors(summary);
  const skipped = total(summary.skipped);
  const warnings = total(summary.warnings);
  const width = options.width ?? null;
  const withCounts = (n: number, counts: Record<string, number>): string =>
    n > 0 ? `${n} (${formatCounts(counts)})` : '0';
  const fact = (label: string, value: string | number): string =>
    hangingLines(`  ${`${label}:`.padEnd(20)}`, String(value), width);
  const repeats = summary.duplicates.files === 1 ? 'repeats' : 'repeat';
  const lines = [
    hangingLines(
      '',
      `${options.interrupted ? 'Scan interrupted after' : 'Scanned'} ${plural(summary.files, 'file')} in ` +
        `${formatSeconds(options.elapsedMs)} (${(summary.bytes / 1e6).toFixed(1)} MB, ${summary.cached} from the scan ` +
        `cache)`,
      width,
    ),
    fact('files found', summary.files),
    fact('media', `${summary.media} (photos ${summary.photos}, videos ${summary.videos})`),
    fact('unreadable', withCounts(total(unreadable), unreadable)),
    fact('damaged', withCounts(total(damaged), damaged)),
    fact('skipped', withCounts(skipped, summary.skipped)),
    fact('would be rejected', reasonTotal(summary.would_reject, WOULD_REJECT)),
    fact(
      'duplicates',
      `${plural(summary.duplicates.files, 'file')} ${repeats} content already seen ` +
        `(${plural(summary.duplicates.distinct_ids, 'distinct content')})`,
    ),
  ];
  lines.push(...leftOutLines(summary.left_out, 20));
  if (warnings > 0) lines.push(fact('warnings', withCounts(warnings, summary.warnings)));
  return lines.join('\n');
}
