import type { CsvInput, PhotoDetails } from '../archive/photo-details.js';
import { folderKey, type SidecarIndex } from '../archive/sidecar-index.js';
import type { MemberTask } from '../archive/types.js';
import type { PathClass, SkipReason } from '../classify.js';
import type { FileTask } from '../read-file.js';
import type { FileProblem } from '../types.js';
import { memberPath } from './member-path.js';

/**
 * What every source of a scan (a folder, a zip, a tar stream) hands to the stages: walk
 * events, in batches. A source is `{ prepare, totals, batches }`: `prepare` reads what must be
 * known before any member is read (a zip's listing and sidecars), `totals` what the listing
 * found (for progress), `batches` the files, skip notices and warnings.
 */
export interface ScanSource {
  prepare(): Promise<void>;
  /** Media found by the listing, for progress before any file is read; null when not listed (a folder). */
  totals(): SourceTotals | null;
  batches(): AsyncIterable<WalkEvent[]>;
  /**
   * Set for a stream read front to back (a tar): how many bytes of its file have been read,
   * its progress (its records do not count their sizes); its members come after the listed
   * sources' (whose sidecars are then all known).
   */
  bytesRead?(): number;
}

/** Media members found by a listing. */
export interface SourceTotals {
  files: number;
  /** The bytes the run will read: a zip's media members (inflated), a tar stream's file (compressed, for .tgz). */
  bytes: number;
  /** False while a stream or a zip inside a zip may add members not yet known. */
  final: boolean;
}

/** A media file found by a source, with what the scan cache keys on. */
export interface WalkFile {
  type: 'file';
  /** Relative to the root it was found under, POSIX separators. */
  path: string;
  absPath: string;
  size: number;
  mtimeMs: number;
  ino: number;
  /** Names, sizes and mtimes of the sidecars in the file's folder ('' when none). */
  sidecarFingerprint: string;
  /** Set for a member of an archive: `absPath` is then `archive!/member`. */
  member?: ArchiveMemberRef;
  /** A folder's file read with sidecars from the run's tree (folders beside archives, tree.ts). */
  treeTask?: FileTask;
}

export type WalkEvent =
  | WalkFile
  | { type: 'skipped'; reason: SkipReason; absPath: string }
  | {
      type: 'warning';
      code: 'unreadable_folder' | 'unreadable_file' | 'photo_details_unusable' | 'sidecar_without_media';
      absPath: string;
      message: string;
    };

/** What a walked file carries when it is an archive member. */
export interface ArchiveMemberRef {
  /** The archive file on disk that holds the member. */
  archive: string;
  /** How a worker reads it; null when the member is refused without reading (`problem`). */
  task: MemberTask | null;
  problem: FileProblem | null;
  /** Not in the scan cache: a tar member has nothing to key on before it is read. */
  uncached: boolean;
}

/** An archive a source reads: its file, and its size and time when already stat'ed. */
export interface SourceRoot {
  absPath: string;
  kind: string;
  stat?: { size: number; mtimeMs: number };
}

/** What the archive sources of one run share. */
export interface SourceRun {
  /** The run's sidecar tree: every archive's sidecars, read before (zip) or as (tar) members are. */
  index: SidecarIndex;
  /** The run's iCloud photo details. */
  details: PhotoDetails;
  /** classifyPath with the run's `--exclude`. */
  classify: (member: string) => PathClass;
  signal?: AbortSignal;
  /** Members read before a sidecar matched them (a tar stream's): one met later still applies. */
  late: Set<string>;
  /** Zip entries kept from the first listing for the member pass, across the run, and the most kept. */
  held: { entries: number; limit: number };
  /** Lower-case names of the media the zips list: the only Photo Details rows kept (photo-details.ts). */
  mediaNames: Set<string>;
  /** The zips' Photo Details CSVs, read once every zip is listed (so `mediaNames` is whole). */
  pendingDetails: Array<() => Promise<void>>;
  /**
   * Tar streams among the run's archives: read after the zips, their sidecars come too late
   * for a zip's member, which then waits for them as a tar's own does (`late`).
   */
  streams: number;
  /** Warnings met outside any member's read (a CSV that cannot be used), handed on with the next batch. */
  warnings: WalkEvent[];
}

/** A Photo Details CSV read into the run (streamed), its problem kept as a warning naming it. */
export async function readDetails(
  run: SourceRun,
  input: CsvInput,
  where: { part: string; absPath: string; wanted?: (name: string) => boolean },
): Promise<void> {
  const problem = await run.details
    .read(input, { part: where.part, ...(where.wanted ? { wanted: where.wanted } : {}) })
    .catch((error: unknown) => `it cannot be read (${describe(error)})`);
  if (problem !== null)
    run.warnings.push({
      type: 'warning',
      code: 'photo_details_unusable',
      absPath: where.absPath,
      message: `Photo Details not used: ${problem}; its photos keep only their own dates`,
    });
}

/** An archive as a source: always listed (a stream's total is its file's size, not final). */
export interface ArchiveSource extends ScanSource {
  totals(): SourceTotals;
}

/** What a source module (sources/zip.ts, sources/tar.ts) gives formats.ts. */
export interface ArchiveSourceModule {
  openSource(root: SourceRoot, run: SourceRun): ArchiveSource;
}

/** Events handed on in one batch at most (as the folder walk). */
export const BATCH = 64;

/** What an archive member is by its name, in a run: a skip (a skipped folder reported once) or what it is kept as. */
export type MemberKind = { skip: SkipReason; at: string } | { keep: 'media' | 'sidecar' | 'details' | 'nested' } | null;

/** A member's name by the one rule (classify.ts), plus what only archives hold (iCloud's CSV, a zip inside). */
export function classifyMember(
  run: SourceRun,
  name: string,
  skippedFolders: Set<string>,
  isDetails: (base: string) => boolean,
  /** The archive the member lies in: its own part's Photo Details rows first (photo-details.ts). */
  part?: string,
): MemberKind {
  const found = run.classify(name);
  const base = name.slice(name.lastIndexOf('/') + 1);
  switch (found.kind) {
    case 'excluded':
    case 'folder':
      return null;
    case 'sidecar':
    case 'media':
      // iCloud's CSV says the photo was in Recently Deleted: the folder's rule.
      if (found.kind === 'media' && run.details.get(folderKey(name).base, part)?.deleted)
        return { skip: 'trashed', at: name };
      return { keep: found.kind };
    case 'archive':
      return found.format === 'zip' ? { keep: 'nested' } : { skip: 'not_media', at: name };
    case 'skip':
      if (found.reason === 'not_media' && isDetails(base)) return { keep: 'details' };
      if (found.at === name) return { skip: found.reason, at: name };
      if (skippedFolders.has(found.at)) return null;
      skippedFolders.add(found.at);
      return { skip: found.reason, at: found.at };
  }
}

/** A member as a walked file: its archive's time, and the archive's size in its cache key. */
export function memberFile(
  root: SourceRoot,
  stat: { size: number; mtimeMs: number },
  name: string,
  file: { size: number; ino: number; sidecarPrint: string },
  ref: Omit<ArchiveMemberRef, 'archive'>,
): WalkFile & { member: ArchiveMemberRef } {
  const absPath = memberPath(root.absPath, name);
  return {
    type: 'file',
    path: absPath, // replaced by the shown path in scan.ts
    absPath,
    size: file.size,
    mtimeMs: stat.mtimeMs,
    ino: file.ino,
    // The archive's size joins the sidecars' print: a re-downloaded part is read again.
    sidecarFingerprint: `${stat.size}:${file.sidecarPrint}`,
    member: { archive: root.absPath, ...ref },
  };
}

/** A member (or the archive itself, `name` null) refused with a problem, without reading. */
export function problemFile(
  root: SourceRoot,
  stat: { size: number; mtimeMs: number } | undefined,
  name: string | null,
  size: number,
  problem: FileProblem,
): WalkFile {
  const file = memberFile(
    root,
    stat ?? { size: 0, mtimeMs: 0 },
    name ?? '',
    { size, ino: 0, sidecarPrint: '' },
    { task: null, problem, uncached: true },
  );
  return name === null ? { ...file, absPath: root.absPath, path: root.absPath } : file;
}

/** A skip notice for a member. */
export function skippedMember(root: SourceRoot, reason: SkipReason, name: string): WalkEvent {
  return { type: 'skipped', reason, absPath: memberPath(root.absPath, name) };
}

export function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
