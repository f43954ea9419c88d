import * as fs from 'node:fs';
import { countMediaFiles } from './count.js';
import { rootKindOf } from './sources/formats.js';
import type { SourceTotals } from './sources/source.js';
import type { ScanEvent } from './types.js';
import type { WalkFs } from './walk.js';

/** Bytes done of a run's total (ScanOptions.onBytes). */
export interface ByteProgress {
  done: number;
  /** Never below `done`: what the listings could not foresee (a zip inside a zip) raises it. */
  total: number;
  /** Of `done`, the bytes of records served from the scan cache: done, but not read (no rate). */
  cached: number;
}

/**
 * Bytes done for `onBytes`: a listed member's or a named file's record counts its size
 * (cached ones too, apart: done is done, but nothing was read), a stream (`streamed`, a tar)
 * counts how far its file has been read (`streamRead`).
 */
export function createByteProgress(
  total: number,
  streamRead: () => number,
  streamed: (archive: string) => boolean,
  onBytes: (progress: ByteProgress) => void,
) {
  let records = 0;
  let cached = 0;
  const report = (): void => {
    const done = records + streamRead();
    onBytes({ done, total: Math.max(total, done), cached });
  };
  report();
  return {
    add(events: ScanEvent[]): void {
      for (const event of events) {
        if (event.type !== 'record') continue;
        const archive = event.record.archive;
        if (archive !== undefined && streamed(archive)) continue; // a tar stream: by its file
        records += event.record.size;
        if (event.record.cached) cached += event.record.size;
      }
      report();
    },
    report,
  };
}

export interface CountOptions {
  exclude?: string[];
  followSymlinks?: boolean;
  /** Archives met inside folders are opened as they are met (`--archives`): the total stays open until then. */
  archives?: boolean;
  walkFs?: Partial<WalkFs>;
}

/**
 * The listing-only count, reported through `onListed`; never fails the scan. Archives are
 * counted from the listings their sources read anyway (`archives`, settled once they have
 * read them): a zip's central directory is read once per run.
 */
export async function startCount(
  roots: string[],
  options: CountOptions,
  signal: AbortSignal,
  archives: Promise<SourceTotals | null>,
  onListed: (files: number, done: boolean) => void,
): Promise<void> {
  try {
    let files = 0;
    let fromArchives = 0;
    let inFolders = 0;
    let open = options.archives === true;
    const folders: string[] = [];
    for (const root of roots) {
      const kind = rootKindOf(root, await fs.promises.stat(root));
      if (kind === 'folder') folders.push(root);
      else if (kind === 'file') files += 1;
    }
    const report = (): void => onListed(files + fromArchives + inFolders, false);
    const counted = archives.then((totals) => {
      if (totals === null) return;
      fromArchives = totals.files;
      open ||= !totals.final;
      report();
    });
    if (files > 0) report();
    inFolders = await countMediaFiles(
      { roots: folders, exclude: options.exclude, followSymlinks: options.followSymlinks, signal, fs: options.walkFs },
      (listed) => {
        inFolders = listed;
        report();
      },
    );
    await counted;
    if (!signal.aborted) onListed(files + fromArchives + inFolders, !open);
  } catch {
    // Only a guide for progress: the walk reports what it cannot read.
  }
}
