import { describe, expect, it } from 'vitest';
import { formatScanSummary } from '../../../src/cli/output/scan-summary.js';
import { createScanSummary, type ScanSummary } from '../../../src/scan/summary.js';

// The empty summary comes from the accumulator itself, so a new member needs no edit here.
const summary = (over: Partial<ScanSummary>): ScanSummary => ({ ...createScanSummary().result(), ...over });

describe("scan's summary speaks sync's vocabulary", () => {
  it('unreadable and damaged files on lines of their own, reasons as codes with a total, plurals that agree', () => {
    const text = formatScanSummary(
      summary({
        files: 1,
        media: 0,
        errors: { read_error: 1, corrupt_file: 2, unsupported_format: 1 },
        unreadable: 1,
        damaged: 3,
        would_reject: { missing_coordinates: 2, missing_taken_at: 1 },
        duplicates: { files: 1, distinct_ids: 1 },
      }),
      { elapsedMs: 1000 },
    );
    expect(text).toMatch(/^Scanned 1 file in 1\.0 s/);
    expect(text).toContain('\n  unreadable:         1 (read_error 1)\n');
    expect(text).toContain('\n  damaged:            3 (corrupt_file 2, unsupported_format 1)\n');
    expect(text).toContain('\n  would be rejected:  3 (missing_coordinates 2, missing_taken_at 1)\n');
    expect(text).toContain('\n  duplicates:         1 file repeats content already seen (1 distinct content)');
    const many = formatScanSummary(summary({ files: 3, duplicates: { files: 2, distinct_ids: 2 } }), { elapsedMs: 0 });
    expect(many).toMatch(/^Scanned 3 files /);
    expect(many).toContain('duplicates:         2 files repeat content already seen (2 distinct contents)');
    expect(many).toContain('\n  unreadable:         0\n  damaged:            0\n');
  });
});
