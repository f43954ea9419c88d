import type { ScanSummary } from '../../scan/summary.js';

/** `a 3, b 1` from counts, largest first; '' when empty. */
export function formatCounts(counts: Record<string, number>): string {
  return Object.entries(counts)
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
    .map(([key, count]) => `${key} ${count}`)
    .join(', ');
}

const total = (counts: Record<string, number>): number => Object.values(counts).reduce((a, b) => a + b, 0);

/** The human-readable end-of-scan summary (one line per fact, stable labels). */
export function formatScanSummary(summary: ScanSummary, options: { elapsedMs: number; interrupted?: boolean }): string {
  const seconds = options.elapsedMs / 1000;
  const errors = total(summary.errors);
  const skipped = total(summary.skipped);
  const warnings = total(summary.warnings);
  const withCounts = (n: number, counts: Record<string, number>): string => (n > 0 ? `${n} (${formatCounts(counts)})` : '0');
  const lines = [
    `${options.interrupted ? 'Scan interrupted after' : 'Scanned'} ${summary.files} files in ${seconds.toFixed(1)} s (${(summary.bytes / 1e6).toFixed(1)} MB, ${summary.cached} from the scan cache)`,
    `  files found:        ${summary.files}`,
    `  media:              ${summary.media} (photos ${summary.photos}, videos ${summary.videos})`,
    `  errors:             ${withCounts(errors, summary.errors)}`,
    `  skipped:            ${withCounts(skipped, summary.skipped)}`,
    `  would be rejected:  missing_coordinates ${summary.would_reject.missing_coordinates}, missing_taken_at ${summary.would_reject.missing_taken_at}`,
    `  duplicates:         ${summary.duplicates.files} files repeat content already seen (${summary.duplicates.distinct_ids} distinct contents)`,
  ];
  if (warnings > 0) lines.push(`  warnings:           ${withCounts(warnings, summary.warnings)}`);
  return lines.join('\n');
}
