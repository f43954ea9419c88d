import * as fs from 'node:fs';
import type { Dirent } from 'node:fs';
import path from 'node:path';
import { classifyName, entryKind, type ExcludeMatcher } from './classify.js';
import { walkFs, type WalkFs, type WalkOptions } from './sources/folder.js';
import { rootKindOf } from './sources/formats.js';
import type { SourceTotals } from './sources/source.js';
import type { ScanEvent } from './types.js';

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
  excluded: ExcludeMatcher | null;
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
      {
        roots: folders,
        excluded: options.excluded,
        followSymlinks: options.followSymlinks,
        signal,
        fs: options.walkFs,
      },
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

/** Entries read per system call: the count holds nothing, so it reads in large steps. */
const COUNT_READ_AHEAD = 1024;

/**
 * Counts the media files under the roots as the walk will find them, by listing alone (a
 * plain file is counted on its name; only symlinks are examined). It runs ahead of the walk,
 * which goes at the pace of hashing, so progress shows a real total, rate and ETA early:
 * `onCount` gets the running count after each folder. It holds only the folders still to
 * list. Unreadable folders are left to the walk to report. Returns the final count.
 */
export async function countMediaFiles(options: WalkOptions, onCount: (files: number) => void): Promise<number> {
  const fs = walkFs(options.fs);
  const excluded = options.excluded ?? null;
  const follow = options.followSymlinks ?? false;
  const visited = new Set<string>();
  let files = 0;
  for (const root of options.roots) {
    const stack: { abs: string; rel: string }[] = [{ abs: root, rel: '' }];
    while (stack.length > 0) {
      if (options.signal?.aborted) return files;
      const folder = stack.pop()!;
      try {
        if (follow) {
          const stats = await fs.stat(folder.abs);
          const key = `${stats.dev}:${stats.ino}`;
          if (visited.has(key)) continue;
          visited.add(key);
        }
        const handle = await fs.opendir(folder.abs, { bufferSize: COUNT_READ_AHEAD });
        try {
          for (let entry = await handle.read(); entry !== null; entry = await handle.read()) {
            const rel = folder.rel === '' ? entry.name : `${folder.rel}/${entry.name}`;
            if (excluded?.(rel)) continue;
            const kind = entryKind(entry.name, entry).kind;
            if (kind === 'media') files += 1;
            else if (kind === 'folder') stack.push({ abs: path.join(folder.abs, entry.name), rel });
            else if (kind === 'link') files += await countLink(entry, folder.abs, rel, { fs, follow, stack });
          }
        } finally {
          await handle.close().catch(() => undefined);
        }
      } catch {
        // The walk reports the folder it cannot read.
      }
      onCount(files);
    }
  }
  return files;
}

/** 1 for a symlinked media file; a followed symlinked folder goes on the stack. */
async function countLink(
  entry: Dirent,
  dir: string,
  rel: string,
  walk: { fs: WalkFs; follow: boolean; stack: { abs: string; rel: string }[] },
): Promise<number> {
  const abs = path.join(dir, entry.name);
  try {
    const stats = await walk.fs.stat(abs);
    if (stats.isDirectory()) {
      if (walk.follow && classifyName(entry.name, 'folder').kind === 'folder') walk.stack.push({ abs, rel });
      return 0;
    }
    return stats.isFile() && classifyName(entry.name, 'file').kind === 'media' ? 1 : 0;
  } catch {
    return 0;
  }
}
