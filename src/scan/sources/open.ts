import { createPhotoDetails, type PhotoDetails } from '../archive/photo-details.js';
import { createSidecarIndex, type SidecarIndex } from '../archive/sidecar-index.js';
import { classifyPath, type ExcludeMatcher } from '../classify.js';
import { loadArchiveSource, type ArchiveRoot } from './formats.js';
import type { ArchiveSource, ArchiveSourceModule, SourceRun, SourceTotals, WalkEvent } from './source.js';

/**
 * Zip entries kept from the first listing for the member pass, across the run: a directory
 * is read once, not twice (a re-scan of an unchanged export is mostly this listing). Past this
 * many (about 60 MB) a zip is listed again in the member pass instead.
 */
const HELD_ENTRIES = 300_000;

export interface SourceRunOptions {
  /** `--exclude`, applied to members' paths. */
  excluded?: ExcludeMatcher | null;
  signal?: AbortSignal;
  /** The run's sidecar tree, shared with the archives found later (default: one of its own). */
  index?: SidecarIndex;
  /** The run's iCloud photo details, shared the same way. */
  details?: PhotoDetails;
  /** Zip entries kept from the first listing for the member pass, across the run (default 300,000). */
  heldEntries?: number;
}

/** What the archive sources of one run share (sources/source.ts, SourceRun). */
export function createSourceRun(options: SourceRunOptions = {}): SourceRun {
  const excluded = options.excluded ?? null;
  return {
    index: options.index ?? createSidecarIndex(),
    details: options.details ?? createPhotoDetails(),
    classify: (member) => classifyPath(member, { excluded }),
    ...(options.signal ? { signal: options.signal } : {}),
    late: new Set(),
    held: { entries: 0, limit: options.heldEntries ?? HELD_ENTRIES },
    streams: 0,
    mediaNames: new Set(),
    pendingDetails: [],
    warnings: [],
  };
}

/**
 * The archives of one run as one source: each read by its format's source (formats.ts),
 * every one prepared before any member is read (a Takeout JSON in one part meets its photo in
 * another), the listed ones (zips) first, then the streams (tars).
 */
export async function openArchives(
  archives: readonly ArchiveRoot[],
  run: SourceRun,
): Promise<ArchiveSource & { bytesRead(): number }> {
  const sources: ArchiveSource[] = [];
  for (const root of archives) {
    const format: ArchiveSourceModule = await loadArchiveSource(root.kind);
    sources.push(format.openSource(root, run));
  }
  run.streams += sources.filter((source) => source.bytesRead).length;
  const ordered = [...sources.filter((source) => !source.bytesRead), ...sources.filter((source) => source.bytesRead)];
  return {
    async prepare() {
      for (const source of sources) {
        if (run.signal?.aborted) return;
        await source.prepare();
      }
      // Every zip listed: their CSVs keep the rows of the media they all hold (a part's CSV may describe another's).
      for (const read of run.pendingDetails.splice(0)) {
        if (run.signal?.aborted) return;
        await read();
      }
    },
    totals: () => sumTotals(sources.map((source) => source.totals())),
    async *batches(): AsyncGenerator<WalkEvent[]> {
      for (const source of ordered) {
        if (run.signal?.aborted) return;
        for await (const batch of source.batches()) {
          if (run.warnings.length > 0) batch.unshift(...run.warnings.splice(0));
          yield batch;
        }
      }
      if (run.warnings.length > 0) yield run.warnings.splice(0);
    },
    bytesRead: () => sources.reduce((sum, source) => sum + (source.bytesRead?.() ?? 0), 0),
  };
}

/** The totals of several sources. */
function sumTotals(all: readonly SourceTotals[]): SourceTotals {
  const sum: SourceTotals = { files: 0, bytes: 0, final: true };
  for (const totals of all) {
    sum.files += totals.files;
    sum.bytes += totals.bytes;
    sum.final &&= totals.final;
  }
  return sum;
}
