import * as fs from 'node:fs';
import * as fsp from 'node:fs/promises';
import { pipeline } from 'node:stream';
import * as zlib from 'node:zlib';
import type tar from 'tar-stream';
import { createExcludeMatcher } from '../exclude.js';
import { MEDIA_EXTENSIONS } from '../extract/formats.js';
import { MAX_SIDECAR_BYTES } from '../extract/sidecars.js';
import { extensionOf, fileSkipReason, folderSkipReason, isSidecarName, type SkipReason } from '../junk.js';
import type { FileProblem } from '../types.js';
import type { WalkEvent, WalkFile } from '../walk.js';
import { archiveKindOf, MEMBER_SEPARATOR, memberPath, type ArchiveRoot, type ArchiveStat } from './kind.js';

export type { ArchiveRoot } from './kind.js';
import { createPhotoDetails, isPhotoDetailsName, type PhotoDetails } from './photo-details.js';
import { createSidecarIndex, folderKey, type SidecarIndex } from './sidecar-index.js';
import { collect, collectEnds, drain, inflateFromBuffer, readMemberBytes, readSmallMember } from './member-bytes.js';
import { LOCAL_HEADER_BYTES, localDataStart } from './local-header.js';
import { ARCHIVE_LIMITS, heldBytes, limitProblem, type MemberTask } from './types.js';
import { centralDirectory, CutArchive, isMissingDirectory, localHeaders, NotAZip, type ZipEntry } from './zip-list.js';

/** What a walked file carries when it is an archive member. */
export interface ArchiveMemberRef {
  /** The archive file on disk that holds the member. */
  archive: string;
  /** How a worker reads it; null when the member is refused without reading (`problem`). */
  task: MemberTask | null;
  problem: FileProblem | null;
  /** Not in the scan cache: a tar member has nothing to key on before it is read. */
  uncached: boolean;
  /** A tar member read before any sidecar matched it: one met later still applies. */
  late: boolean;
}

export interface ArchiveWalkOptions {
  archives: ArchiveRoot[];
  exclude?: string[];
  signal?: AbortSignal;
  /** The run's sidecar tree, shared with the archives found later (default: one of its own). */
  index?: SidecarIndex;
  /** The run's iCloud photo details, shared the same way. */
  details?: PhotoDetails;
  /** Zip entries kept from the first pass for the member pass, across the run (default HELD_ENTRIES). */
  heldEntries?: number;
}

/** Events handed on in one batch at most (as the folder walk). */
const BATCH = 64;
/** Bytes of tar members read ahead of the threads in one batch. */
const HELD_BYTES = 8 * 1024 * 1024;
/**
 * Inflated bytes per chunk of a .tgz stream. zlib's default (16 KiB) hands the tar parser
 * and the member buffers tens of thousands of small chunks per gigabyte.
 */
const GUNZIP_CHUNK = 256 * 1024;
/** An iCloud Photo Details CSV: about 100 bytes a photo, so 64 MiB is over half a million photos. */
const MAX_DETAILS_BYTES = 64 * 1024 * 1024;

/** A 0-byte part, whatever its format (zip-list.ts says the same of a zip). */
const EMPTY_DOWNLOAD = 'the archive is empty: a download that never started';

/**
 * Zip entries kept from the first listing for the member pass, across the run: a directory
 * is read once, not twice (a re-scan of an unchanged export is mostly this listing). Past this
 * many (about 60 MB) a zip is listed again in the member pass instead.
 */
const HELD_ENTRIES = 300_000;

/** A zip's listing as read in pass 1: kept whole, or dropped (`entries` null) past HELD_ENTRIES. */
interface Listing {
  entries: ZipEntry[] | null;
  /** Where a download without a central directory stops (its entries are always kept: a costly walk). */
  cut: CutArchive | null;
  /** Recovered from local headers: never listed by its (missing) central directory again. */
  recovered: boolean;
}

/** Media members found by the listings, for progress before any member is read. */
export interface ArchiveTotals {
  files: number;
  /** The bytes the run will read: a zip's media members (inflated), a tar stream's file (compressed, for .tgz). */
  bytes: number;
  /** False while a tar stream or a zip inside a zip may add members not yet known. */
  final: boolean;
}

/** Why a member is left out on its name (a skipped folder reported once), what it is when kept, or null. */
type Classify = (
  member: string,
  skippedFolders: Set<string>,
) => { skip: SkipReason; at: string } | { keep: 'media' | 'sidecar' | 'details' | 'nested' } | null;

/** Media members of a listing, for the progress total. */
interface MediaTally {
  files: number;
  bytes: number;
  /** A zip inside: its members are not counted, its bytes are. */
  nested: boolean;
}

/** What a kept member is. */
type Kept = Extract<ReturnType<Classify>, { keep: unknown }>['keep'];

/** Why a zip member is not read (encrypted, or over a limit), or null when it is. */
function memberProblem(entry: ZipEntry): FileProblem | null {
  if (entry.encrypted)
    return {
      code: 'unsupported_format',
      message: 'the member is encrypted; camroll does not decrypt archives (export it again without a password)',
    };
  const limit = limitProblem(entry.size, entry.compressedSize);
  return limit === null ? null : { code: 'archive_limit', message: limit };
}

const emptyTally = (): MediaTally => ({ files: 0, bytes: 0, nested: false });

function addToTally(tally: MediaTally, entry: ZipEntry, kind: ReturnType<Classify>): void {
  if (kind === null || !('keep' in kind)) return;
  if (kind.keep === 'nested') {
    tally.nested = true;
    tally.bytes += entry.size;
  } else if (kind.keep === 'media') {
    tally.files += 1;
    tally.bytes += entry.size;
  }
}

/**
 * The archives given in one run as walk events: zips first (their central directories list
 * every member up front), then tar streams. `prepare()` reads the sidecars of every zip into
 * one index before any member is read, so a Takeout JSON in one part meets its photo in
 * another; a tar stream adds its sidecars as it goes, and its media read before their
 * sidecar are held (`isLate`) and given it at the end (`releaseLate`).
 */
export function createArchiveWalk(options: ArchiveWalkOptions) {
  const index = options.index ?? createSidecarIndex();
  const details = options.details ?? createPhotoDetails();
  const excluded = createExcludeMatcher(options.exclude ?? []);
  const listings = new Map<string, Listing>();
  let heldEntries = 0;
  /** Each zip's media as its first listing streamed past: the total of a zip whose listing is not kept. */
  const streamed = new Map<string, MediaTally>();
  /** Bytes of the tar streams read so far: the file bytes of those done, and how far into the current one. */
  let tarBytesDone = 0;
  let tarInput: fs.ReadStream | null = null;
  const failed = new Map<string, FileProblem>();
  const stats = new Map<string, ArchiveStat>();
  const late = new Set<string>();

  /** Why a member is left out on its name, or null when it is kept; a skipped folder is reported once. */
  const classify: Classify = (member, skippedFolders) => {
    const parts = member.split('/');
    const base = parts.pop()!;
    let rel = '';
    for (const part of parts) {
      rel = rel === '' ? part : `${rel}/${part}`;
      if (part === '' || part === '.' || part === '..') continue; // only names: nothing is extracted
      if (excluded?.(rel)) return null;
      const reason = folderSkipReason(part);
      if (reason) {
        if (skippedFolders.has(rel)) return null;
        skippedFolders.add(rel);
        return { skip: reason, at: rel };
      }
    }
    if (excluded?.(member)) return null;
    const reason = fileSkipReason(base);
    if (reason) return { skip: reason, at: member };
    if (isSidecarName(base)) return { keep: 'sidecar' };
    if (isPhotoDetailsName(base)) return { keep: 'details' };
    if (archiveKindOf(base) === 'zip') return { keep: 'nested' };
    if (!MEDIA_EXTENSIONS.has(extensionOf(base))) return { skip: 'not_media', at: member };
    // iCloud's CSV says the photo was in Recently Deleted: the folder's rule.
    if (details.get(folderKey(member).base)?.deleted) return { skip: 'trashed', at: member };
    return { keep: 'media' };
  };

  /** The most of a sidecar (or an iCloud Photo Details CSV) that is read. */
  const sidecarLimit = (keep: Kept): number => (keep === 'details' ? MAX_DETAILS_BYTES : MAX_SIDECAR_BYTES);

  /** A sidecar's (or a CSV's) text into the run's tree. */
  const addSidecar = async (keep: Kept, name: string, text: string, part: string): Promise<void> => {
    if (keep === 'details') await details.read(text, { part });
    else index.add(name, text);
  };

  /** The member pass's listing of a zip: the one kept from pass 1, or the directory read again. */
  async function* zipEntries(absPath: string): AsyncGenerator<ZipEntry> {
    const listing = listings.get(absPath);
    if (listing?.entries) {
      yield* listing.entries;
      if (listing.cut) throw listing.cut;
      return;
    }
    yield* centralDirectory(absPath);
  }

  /**
   * Lists a zip for pass 1 and keeps the entries for the member pass (while the run holds
   * fewer than HELD_ENTRIES). A zip without a central directory is walked by its local
   * headers, and that listing is always kept.
   */
  async function* firstListing(absPath: string): AsyncGenerator<ZipEntry> {
    const listing: Listing = { entries: [], cut: null, recovered: false };
    listings.set(absPath, listing);
    const keep = (entry: ZipEntry): void => {
      if (listing.entries === null) return;
      if (!listing.recovered && heldEntries >= (options.heldEntries ?? HELD_ENTRIES)) {
        heldEntries -= listing.entries.length;
        listing.entries = null;
        return;
      }
      listing.entries.push(entry);
      heldEntries += 1;
    };
    try {
      for await (const entry of centralDirectory(absPath)) {
        keep(entry);
        yield entry;
      }
      return;
    } catch (error) {
      if (!isMissingDirectory(error)) throw error;
    }
    heldEntries -= listing.entries?.length ?? 0;
    listing.entries = [];
    listing.recovered = true;
    try {
      for await (const entry of localHeaders(absPath)) {
        keep(entry);
        yield entry;
      }
    } catch (error) {
      if (!(error instanceof CutArchive)) throw error;
      listing.cut = error;
    }
  }

  /**
   * The media members the listings found, counted by the member pass's own rules (skipped
   * folders, junk, iCloud's deleted rows, known once every part's CSV is read).
   */
  function totals(): ArchiveTotals {
    const result: ArchiveTotals = { files: 0, bytes: 0, final: true };
    for (const root of options.archives) {
      if (root.kind !== 'zip') {
        result.final = false; // a tar stream's members are known once it is read
        result.bytes += stats.get(root.absPath)?.size ?? 0;
        continue;
      }
      if (failed.has(root.absPath)) continue;
      const listing = listings.get(root.absPath);
      const entries = listing?.entries;
      // The tally streamed in pass 1 stands unless a Photo Details CSV (read later than some
      // members) may drop a member, or a recovered listing streamed some entries twice.
      const tally =
        entries && (details.size > 0 || listing?.recovered)
          ? tallyMedia(entries)
          : (streamed.get(root.absPath) ?? emptyTally());
      result.files += tally.files;
      result.bytes += tally.bytes;
      if (tally.nested) result.final = false; // a zip inside a zip: its members are known once it is read
    }
    return result;
  }

  /** The media members of a listing by the member pass's rules; a nested zip counts its own bytes. */
  function tallyMedia(entries: Iterable<ZipEntry>): MediaTally {
    const tally = emptyTally();
    const skipped = new Set<string>();
    for (const entry of entries) if (!entry.folder) addToTally(tally, entry, classify(entry.name, skipped));
    return tally;
  }

  /** Pass 1: every zip's sidecars into the index. */
  async function prepare(): Promise<void> {
    for (const root of options.archives) {
      if (options.signal?.aborted) return;
      try {
        stats.set(root.absPath, root.stat ?? (await fsp.stat(root.absPath)));
      } catch (error) {
        failed.set(root.absPath, { code: 'read_error', message: describe(error) });
        continue;
      }
      if (root.kind !== 'zip') continue;
      let handle: fsp.FileHandle | null = null;
      try {
        const skipped = new Set<string>();
        const tally = emptyTally();
        streamed.set(root.absPath, tally);
        for await (const entry of firstListing(root.absPath)) {
          // Ctrl-C stops the listing of a large (or cut) export at once.
          if (options.signal?.aborted) return;
          if (entry.folder) continue;
          const kind = classify(entry.name, skipped);
          addToTally(tally, entry, kind);
          if (entry.encrypted || kind === null || !('keep' in kind)) continue;
          if (kind.keep === 'media' || kind.keep === 'nested') continue;
          const limit = sidecarLimit(kind.keep);
          if (entry.size > limit || entry.compressedSize > limit) continue;
          handle ??= await fsp.open(root.absPath, 'r');
          // A damaged sidecar costs its photo the sidecar, never the other members of the part.
          const text = await readSmallMember(handle, entry, limit).catch(() => null);
          if (text !== null) await addSidecar(kind.keep, entry.name, text, root.absPath);
        }
      } catch (error) {
        failed.set(
          root.absPath,
          error instanceof NotAZip
            ? { code: 'unsupported_format', message: describe(error) }
            : {
                code: isMissingDirectory(error) ? 'corrupt_file' : 'read_error',
                message: `the archive cannot be listed: ${describe(error)}`,
              },
        );
      } finally {
        await handle?.close();
      }
    }
  }

  function memberFile(
    root: ArchiveRoot,
    name: string,
    size: number,
    ino: number,
    sidecarPrint: string,
    ref: Omit<ArchiveMemberRef, 'archive'>,
  ): WalkFile & { member: ArchiveMemberRef } {
    const stat = stats.get(root.absPath)!;
    const absPath = memberPath(root.absPath, name);
    return {
      type: 'file',
      path: absPath, // replaced by the shown path in scan.ts
      absPath,
      size,
      mtimeMs: stat.mtimeMs,
      ino,
      // The archive's size joins the sidecars' print: a re-downloaded part is read again.
      sidecarFingerprint: `${stat.size}:${sidecarPrint}`,
      member: { archive: root.absPath, ...ref },
    };
  }

  function problemFile(
    root: ArchiveRoot,
    name: string | null,
    size: number,
    problem: FileProblem,
  ): WalkFile & { member: ArchiveMemberRef } {
    const file = memberFile(root, name ?? '', size, 0, '', { task: null, problem, uncached: true, late: false });
    // The archive itself, when no member is to blame.
    return name === null ? { ...file, absPath: root.absPath, path: root.absPath } : file;
  }

  async function* zipBatches(root: ArchiveRoot): AsyncGenerator<WalkEvent[]> {
    let events: WalkEvent[] = [];
    const skipped = new Set<string>();
    try {
      for await (const entry of zipEntries(root.absPath)) {
        if (options.signal?.aborted) return;
        if (entry.folder) continue;
        const kind = classify(entry.name, skipped);
        if (kind === null) continue;
        if ('skip' in kind)
          events.push({ type: 'skipped', reason: kind.skip, absPath: memberPath(root.absPath, kind.at) });
        else if (kind.keep === 'nested') {
          if (events.length > 0) yield events;
          events = [];
          yield* nestedBatches(root, entry);
        } else if (kind.keep !== 'media')
          events.push({ type: 'skipped', reason: 'sidecar', absPath: memberPath(root.absPath, entry.name) });
        else events.push(zipMember(root, entry));
        if (events.length >= BATCH) {
          yield events;
          events = [];
        }
      }
    } catch (error) {
      if (error instanceof CutArchive)
        events.push(problemFile(root, error.member, 0, { code: 'truncated_archive', message: error.message }));
      else
        events.push(
          problemFile(root, null, 0, {
            code: 'read_error',
            message: `the archive cannot be listed: ${describe(error)}`,
          }),
        );
    }
    if (events.length > 0) yield events;
  }

  /**
   * A zip inside a zip, read into memory (bounded) and listed like any zip, one level deep:
   * its sidecars and CSVs join the run's tree before its members; its members' compressed
   * bytes are handed to the threads, which inflate them. A zip inside it is only counted.
   */
  async function* nestedBatches(root: ArchiveRoot, outer: ZipEntry): AsyncGenerator<WalkEvent[]> {
    const refuse = (problem: FileProblem): WalkEvent[] => [problemFile(root, outer.name, outer.size, problem)];
    const limit = limitProblem(outer.size, outer.compressedSize);
    if (outer.encrypted)
      return yield refuse({
        code: 'unsupported_format',
        message: 'the nested zip is encrypted; camroll does not decrypt archives',
      });
    if (limit !== null) return yield refuse({ code: 'archive_limit', message: limit });
    if (outer.size > ARCHIVE_LIMITS.nestedZipBytes) {
      return yield refuse({
        code: 'archive_limit',
        message:
          `a zip inside a zip is read in memory up to ${ARCHIVE_LIMITS.nestedZipBytes} bytes; extract this ` +
          `one first`,
      });
    }
    const handle = await fsp.open(root.absPath, 'r');
    let data: Buffer | null;
    try {
      data = await readMemberBytes(handle, outer, ARCHIVE_LIMITS.nestedZipBytes);
    } finally {
      await handle.close();
    }
    if (data === null)
      return yield refuse({
        code: 'corrupt_file',
        message: 'the nested zip cannot be read (damaged, or not what its header says)',
      });
    const entries: ZipEntry[] = [];
    try {
      for await (const entry of centralDirectory(data)) entries.push(entry);
    } catch (error) {
      return yield refuse({ code: 'corrupt_file', message: `the nested zip cannot be listed: ${describe(error)}` });
    }
    const skipped = new Set<string>();
    const prefix = `${outer.name}${MEMBER_SEPARATOR}`;
    // Sidecars and CSVs first, so every member below finds them.
    for (const entry of entries) {
      if (entry.folder || entry.encrypted) continue;
      const kind = classify(entry.name, new Set());
      if (kind === null || !('keep' in kind) || (kind.keep !== 'sidecar' && kind.keep !== 'details')) continue;
      const text = inflateFromBuffer(data, entry, sidecarLimit(kind.keep));
      if (text !== null) await addSidecar(kind.keep, entry.name, text.toString('utf8'), root.absPath);
    }
    let events: WalkEvent[] = [];
    for (const entry of entries) {
      if (options.signal?.aborted) return;
      if (entry.folder) continue;
      const kind = classify(entry.name, skipped);
      if (kind === null) continue;
      const name = prefix + entry.name;
      if ('skip' in kind)
        events.push({ type: 'skipped', reason: kind.skip, absPath: memberPath(root.absPath, prefix + kind.at) });
      else if (kind.keep === 'nested')
        events.push({ type: 'skipped', reason: 'archive', absPath: memberPath(root.absPath, name) });
      else if (kind.keep !== 'media')
        events.push({ type: 'skipped', reason: 'sidecar', absPath: memberPath(root.absPath, name) });
      else events.push(nestedMember(root, name, entry, data));
      if (events.length >= BATCH) {
        yield events;
        events = [];
      }
    }
    if (events.length > 0) yield events;
  }

  function nestedMember(root: ArchiveRoot, name: string, entry: ZipEntry, zip: Buffer): WalkFile {
    const sidecars = index.find(name.slice(name.indexOf(MEMBER_SEPARATOR) + MEMBER_SEPARATOR.length));
    const problem: FileProblem | null =
      memberProblem(entry) ??
      (entry.size > ARCHIVE_LIMITS.inMemoryBytes
        ? {
            code: 'archive_limit',
            message: `a member of a nested zip is read in memory up to ${ARCHIVE_LIMITS.inMemoryBytes} bytes`,
          }
        : null);
    // Only the compressed bytes are cut out here: the thread inflates and checks them.
    const start =
      problem === null
        ? localDataStart(zip.subarray(entry.headerOffset, entry.headerOffset + LOCAL_HEADER_BYTES), entry.headerOffset)
        : null;
    const whole = start !== null && start + entry.compressedSize <= zip.length;
    const readProblem: FileProblem | null =
      problem ??
      (whole ? null : { code: 'corrupt_file', message: 'the nested zip has no whole member where its directory says' });
    const absPath = memberPath(root.absPath, name);
    const task: MemberTask | null =
      readProblem === null
        ? {
            absPath,
            source: {
              kind: 'compressed',
              // A copy of its own (the nested zip is shared): it moves to a worker thread.
              data: new Uint8Array(zip.subarray(start!, start! + entry.compressedSize)),
              method: entry.method,
              size: entry.size,
              crc32: entry.crc32,
            },
            sidecars: { takeout: sidecars.takeout, xmp: sidecars.xmp },
          }
        : null;
    return memberFile(root, name, entry.size, entry.crc32, sidecars.print, {
      task,
      problem: readProblem,
      uncached: false,
      late: false,
    });
  }

  function zipMember(root: ArchiveRoot, entry: ZipEntry): WalkFile {
    const sidecars = index.find(entry.name);
    const problem = memberProblem(entry);
    const absPath = memberPath(root.absPath, entry.name);
    const task: MemberTask | null =
      problem === null
        ? {
            absPath,
            source: {
              kind: 'zip',
              archive: root.absPath,
              headerOffset: entry.headerOffset,
              compressedSize: entry.compressedSize,
              size: entry.size,
              method: entry.method,
              crc32: entry.crc32,
            },
            sidecars: { takeout: sidecars.takeout, xmp: sidecars.xmp },
          }
        : null;
    // crc32 stands in for the inode: a member is the same when its name, size and CRC are.
    return memberFile(root, entry.name, entry.size, entry.crc32, sidecars.print, {
      task,
      problem,
      uncached: false,
      late: false,
    });
  }

  async function* tarBatches(root: ArchiveRoot): AsyncGenerator<WalkEvent[]> {
    const extract = (await tarReader()).extract();
    const input = fs.createReadStream(root.absPath, { highWaterMark: 1024 * 1024 });
    tarInput = input;
    // A failure anywhere (a cut gzip stream, a bad header) ends the entries with that error.
    if (root.kind === 'tgz') pipeline(input, zlib.createGunzip({ chunkSize: GUNZIP_CHUNK }), extract, () => undefined);
    else pipeline(input, extract, () => undefined);
    let events: WalkEvent[] = [];
    let held = 0; // bytes of the members in `events`
    const skipped = new Set<string>();
    let current: string | null = null;
    try {
      for await (const entry of extract) {
        if (options.signal?.aborted) {
          entry.resume();
          break;
        }
        const name = entry.header.name;
        current = name;
        const kind =
          entry.header.type === 'file' || entry.header.type === 'contiguous-file' ? classify(name, skipped) : null;
        if (kind === null || 'skip' in kind) {
          if (kind !== null)
            events.push({ type: 'skipped', reason: kind.skip, absPath: memberPath(root.absPath, kind.at) });
          await drain(entry);
        } else if (kind.keep !== 'media') {
          events.push({ type: 'skipped', reason: 'sidecar', absPath: memberPath(root.absPath, name) });
          const size = entry.header.size ?? 0;
          if (size > sidecarLimit(kind.keep)) await drain(entry);
          else
            await addSidecar(kind.keep, name, Buffer.from(await collect(entry, size)).toString('utf8'), root.absPath);
        } else {
          const file = await tarMember(root, name, entry);
          if (options.signal?.aborted) break; // a member cut short by the stop is not a line
          held += file.member?.task ? heldBytes(file.member.task.source) : 0;
          events.push(file);
        }
        current = null;
        // Members' bytes are in memory: a batch is handed on by bytes too.
        if (events.length >= BATCH || held >= HELD_BYTES) {
          yield events;
          events = [];
          held = 0;
        }
      }
    } catch (error) {
      events.push(
        problemFile(root, current, 0, {
          code: 'truncated_archive',
          message: `the archive is damaged or cut here; what came before was read (${describe(error)})`,
        }),
      );
    } finally {
      extract.destroy();
      input.destroy();
      tarInput = null;
      tarBytesDone += stats.get(root.absPath)?.size ?? 0;
    }
    if (events.length > 0) yield events;
  }

  async function tarMember(root: ArchiveRoot, name: string, entry: tar.Entry): Promise<WalkFile> {
    const size = entry.header.size ?? 0;
    const absPath = memberPath(root.absPath, name);
    let source: MemberTask['source'];
    if (size > ARCHIVE_LIMITS.inMemoryBytes) {
      // Too large to hold (a long video): hashed here as it passes, only its ends kept for the readers.
      const ends = await collectEnds(entry, {
        size,
        headBytes: ARCHIVE_LIMITS.endsHeadBytes,
        tailBytes: ARCHIVE_LIMITS.endsTailBytes,
        signal: options.signal,
      });
      if (ends === null)
        return problemFile(root, name, size, {
          code: 'truncated_archive',
          message: 'the archive ends inside this member',
        });
      source = { kind: 'ends', size, ...ends };
    } else source = { kind: 'bytes', data: await collect(entry, size) };
    const sidecars = index.find(name);
    // Held only where a JSON may still come: a Takeout tree, or a run that has met sidecars.
    // Elsewhere (a tar of plain photos, an iCloud export) records flow as they are read.
    const pending = sidecars.print === '' && (index.size > 0 || /(^|\/)takeout\//i.test(name));
    if (pending) late.add(absPath);
    const task: MemberTask = { absPath, source, sidecars: { takeout: sidecars.takeout, xmp: sidecars.xmp } };
    return memberFile(root, name, size, 0, sidecars.print, { task, problem: null, uncached: true, late: pending });
  }

  return {
    prepare,
    totals,
    /** Pass 2: the members of every archive, zips first. */
    async *batches(): AsyncGenerator<WalkEvent[]> {
      const ordered = [
        ...options.archives.filter((root) => root.kind === 'zip'),
        ...options.archives.filter((root) => root.kind !== 'zip'),
      ];
      for (const root of ordered) {
        if (options.signal?.aborted) return;
        const problem = failed.get(root.absPath);
        if (problem) {
          yield [problemFile(root, null, 0, problem)];
          continue;
        }
        // tar-stream reads 0 bytes as an archive with no member; a real empty tar has its end
        // blocks, so 0 bytes is a download that never started (as a 0-byte zip says).
        if (root.kind !== 'zip' && stats.get(root.absPath)?.size === 0) {
          yield [problemFile(root, null, 0, { code: 'truncated_archive', message: EMPTY_DOWNLOAD })];
          continue;
        }
        yield* root.kind === 'zip' ? zipBatches(root) : tarBatches(root);
      }
    },
    /** How many bytes of the tar streams (of `totals().bytes`) have been read: their progress. */
    tarBytesRead: (): number => tarBytesDone + (tarInput?.bytesRead ?? 0),
    /** Whether a record's sidecars may still come (a tar member read before its JSON). */
    isLate: (absPath: string): boolean => late.has(absPath),
    /** Whether any member read so far is waiting for its sidecars (none in a run of zips). */
    hasLate: (): boolean => late.size > 0,
  };
}

export type ArchiveWalk = ReturnType<typeof createArchiveWalk>;

/** The tar reader, loaded when the first tar stream is read: a run of zips never needs it. */
let tarModule: Promise<typeof tar> | null = null;
const tarReader = (): Promise<typeof tar> =>
  (tarModule ??= import('tar-stream').then((loaded) => (loaded as { default?: typeof tar }).default ?? loaded));

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
