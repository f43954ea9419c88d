import path from 'node:path';
import { indexFolderSidecars, useTreeSidecars } from '../archive/folder-sidecars.js';
import type { SidecarIndex } from '../archive/sidecar-index.js';
import { walkBatches, type WalkFs } from '../walk.js';
import { archiveRootOf, type ArchiveRoot } from './formats.js';
import type { ArchiveSource, ScanSource, WalkEvent } from './source.js';

export interface FolderSourceOptions {
  /** Absolute folders, walked one after the other. */
  roots: string[];
  exclude?: string[];
  followSymlinks?: boolean;
  signal: AbortSignal;
  fs?: Partial<WalkFs>;
  /**
   * The run's tree, when archives share the run: the folders' sidecars join it (prepare), and
   * each file is read with the sidecars it matches there (its own folder's first).
   */
  tree: SidecarIndex | null;
  /** With `--archives`: opens archives the walk met, in place of their skip notices. */
  openFound: ((roots: ArchiveRoot[]) => Promise<ArchiveSource>) | null;
  /** Archives named as roots: read there, so neither opened nor counted as skipped here. */
  named: ReadonlySet<string>;
}

/**
 * Folders as a source: the walk (walk.ts: depth-first, junk and `--exclude` left out, media
 * stat'ed), with what the run adds: the tree's sidecars when archives share the run, the
 * archives it meets opened with `--archives` (else counted as skipped). Not listed ahead:
 * no totals (the count, count.ts, runs beside the scan).
 */
export function openFolderSource(options: FolderSourceOptions): ScanSource {
  return {
    async prepare() {
      if (options.tree !== null && options.roots.length > 0)
        await indexFolderSidecars({
          roots: options.roots,
          exclude: options.exclude,
          index: options.tree,
          signal: options.signal,
        });
    },
    totals: () => null,
    batches() {
      const walked = walkBatches({
        roots: options.roots,
        exclude: options.exclude,
        followSymlinks: options.followSymlinks,
        signal: options.signal,
        fs: options.fs,
      });
      const read = options.tree === null ? walked : withTreeSidecars(walked, options.tree);
      return options.openFound !== null
        ? openFoundArchives(read, options.openFound, options.named)
        : options.named.size > 0
          ? withoutNamed(read, options.named)
          : read;
    },
  };
}

/**
 * A folder's files, when archives share the run: each is read with the sidecars the run's
 * tree matches to its path (its own folder's first, by the folder reader's rules; else an
 * archive part's or another folder's), and the cache keys on them.
 */
async function* withTreeSidecars(walked: AsyncIterable<WalkEvent[]>, index: SidecarIndex): AsyncGenerator<WalkEvent[]> {
  for await (const batch of walked) {
    for (const event of batch)
      if (event.type === 'file' && !event.member)
        useTreeSidecars(event, index.find(event.path, path.dirname(event.absPath)));
    yield batch;
  }
}

const isArchiveNotice = (event: WalkEvent): boolean => event.type === 'skipped' && event.reason === 'archive';

/** The walk's notices of archives also named as arguments: those are read, not skipped. */
async function* withoutNamed(
  walked: AsyncIterable<WalkEvent[]>,
  named: ReadonlySet<string>,
): AsyncGenerator<WalkEvent[]> {
  for await (const batch of walked)
    yield batch.filter((event) => !(isArchiveNotice(event) && named.has(event.absPath)));
}

/**
 * With `--archives`: an archive the folder walk met (its skip notice) is opened in place of
 * the notice, its sidecars joining the run's tree. Without the flag the notice stays and
 * the summary counts it.
 */
async function* openFoundArchives(
  walked: AsyncIterable<WalkEvent[]>,
  open: (roots: ArchiveRoot[]) => Promise<ArchiveSource>,
  named: ReadonlySet<string>,
): AsyncGenerator<WalkEvent[]> {
  for await (const batch of walked) {
    // One also named as an argument is read there, once.
    const archives = batch
      .filter((event) => isArchiveNotice(event) && !named.has(event.absPath))
      .map((event) => archiveRootOf(event.absPath)!);
    const rest = batch.filter((event) => !isArchiveNotice(event));
    if (archives.length === 0) {
      if (rest.length > 0) yield rest;
      continue;
    }
    yield rest;
    const found = await open(archives);
    await found.prepare();
    yield* found.batches();
  }
}
