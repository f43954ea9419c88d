import * as fsp from 'node:fs/promises';
import { ArchiveError } from '../../errors.js';
import { compressedInBuffer, inflateFromBuffer, memberStream, readMemberBytes } from '../archive/member-bytes.js';
import { isPhotoDetailsName } from '../archive/photo-details.js';
import {
  ARCHIVE_LIMITS,
  createInflateBudget,
  limitProblem,
  type InflateBudget,
  type MemberSource,
} from '../archive/types.js';
import {
  centralDirectory,
  createOverlapCheck,
  isCutArchive,
  isMissingDirectory,
  localHeaders,
  type ZipEntry,
} from '../archive/zip-list.js';
import { MAX_SIDECAR_BYTES } from '../extract/sidecars.js';
import type { FileProblem } from '../types.js';
import { MEMBER_SEPARATOR, memberPath } from './member-path.js';
import {
  BATCH,
  classifyMember,
  describe,
  memberFile,
  problemFile,
  readDetails,
  skippedMember,
  type MemberKind,
  type ArchiveSource,
  type SourceRoot,
  type SourceRun,
  type SourceTotals,
  type WalkEvent,
  type WalkFile,
} from './source.js';

/** A zip's listing as read by `prepare`: kept whole, or dropped (`entries` null) past the run's held entries. */
interface Listing {
  entries: ZipEntry[] | null;
  /** Where a download without a central directory stops (its entries are always kept: a costly walk). */
  cut: ArchiveError | null;
  /** Recovered from local headers: never listed by its (missing) central directory again. */
  recovered: boolean;
}

/** An archive whose size and time are known. */
type Located = SourceRoot & { stat: { size: number; mtimeMs: number } };

/** Media members of a listing, for the progress total. */
interface MediaTally {
  files: number;
  bytes: number;
  /** A zip inside: its members are not counted, its bytes are. */
  nested: boolean;
}

/** Where a zip's members lie: its file on disk, or (a zip inside a zip) its bytes in memory. */
interface ZipBody {
  /** Before each member's name in its path: a nested zip's name and `!/`. */
  prefix: string;
  /** A member's bytes for a worker, or why it cannot have them. */
  locate(entry: ZipEntry): MemberSource | FileProblem;
  /** A zip inside: its batches, or null when it is only counted (one level deep). */
  nested: ((entry: ZipEntry) => AsyncIterable<WalkEvent[]>) | null;
}

/**
 * A zip as a source: `prepare` lists it (its central directory, or the local headers of a
 * download cut short) and reads its sidecars and CSVs into the run's tree, so every part's
 * sidecars are known before any member is read; `batches` lists its members (the listing kept
 * from `prepare` while the run holds few enough entries) for the threads, which read them in
 * place. A zip inside it is read the same way, from memory, one level deep.
 */
export function openSource(root: SourceRoot, run: SourceRun): ArchiveSource {
  let stat = root.stat ?? null;
  let failure: FileProblem | null = null;
  const tally: MediaTally = { files: 0, bytes: 0, nested: false };
  const listing: Listing = { entries: [], cut: null, recovered: false };
  // The zip's budget of inflated bytes, spent by its sidecars in `prepare` and its members after.
  let budget: InflateBudget | null = null;
  const budgetOf = (): InflateBudget => (budget ??= createInflateBudget(stat!.size));
  const file = fileBody(root, run, () => stat!, budgetOf);

  async function prepare(): Promise<void> {
    if (run.signal?.aborted) return;
    try {
      stat ??= await fsp.stat(root.absPath);
    } catch (error) {
      failure = { code: 'read_error', message: describe(error) };
      return;
    }
    let handle: fsp.FileHandle | null = null;
    const read = (entry: ZipEntry) => async (limit: number) =>
      readMemberBytes((handle ??= await fsp.open(root.absPath, 'r')), entry, limit);
    try {
      const skipped = new Set<string>();
      let overlap = createOverlapCheck();
      let recovering = false;
      for await (const entry of firstListing(root.absPath, listing, run)) {
        // Ctrl-C stops the listing of a large (or cut) export at once.
        if (run.signal?.aborted) return;
        // A directory that breaks part-way is listed again from the local headers: from its start.
        if (!recovering && listing.recovered) {
          recovering = true;
          overlap = createOverlapCheck();
        }
        overlap.add(entry);
        // Entries that share bytes: none of them is read, not even a sidecar.
        if (overlap.seen()) break;
        if (entry.folder) continue;
        const kind = classifyMember(run, entry.name, skipped, isPhotoDetailsName);
        addToTally(tally, entry, kind);
        if (kind !== null && 'keep' in kind && kind.keep === 'media')
          run.mediaNames.add(
            entry.name
              .slice(entry.name.lastIndexOf('/') + 1)
              .normalize('NFC')
              .toLowerCase(),
          );
        if (kind !== null && 'keep' in kind && kind.keep === 'details') {
          // Read once every zip of the run is listed: only the rows of their media are kept.
          if (!budgetOf().take(entry.size)) {
            failure = { code: 'archive_limit', message: budgetOf().problem };
            return;
          }
          run.pendingDetails.push(() =>
            readDetails(run, memberStream(root.absPath, entry), {
              part: root.absPath,
              absPath: memberPath(root.absPath, entry.name),
              wanted: (name) => run.mediaNames.has(name),
            }),
          );
        } else if (!entry.encrypted && !(await takeSidecar(run, entry, kind, read(entry), budgetOf()))) {
          failure = { code: 'archive_limit', message: budgetOf().problem };
          return;
        }
      }
      const overlapping = overlap.problem();
      if (overlapping !== null) failure = { code: 'archive_limit', message: overlapping };
    } catch (error) {
      failure = listingFailure(error);
    } finally {
      await (handle as fsp.FileHandle | null)?.close();
    }
  }

  return {
    prepare,
    totals(): SourceTotals {
      if (failure !== null) return { files: 0, bytes: 0, final: true };
      // The tally streamed by prepare stands unless a Photo Details CSV (read later than some
      // members) may drop a member, or a recovered listing streamed some entries twice.
      const counted =
        listing.entries && (run.details.size > 0 || listing.recovered) ? tallyMedia(run, listing.entries) : tally;
      return { files: counted.files, bytes: counted.bytes, final: !counted.nested };
    },
    async *batches(): AsyncGenerator<WalkEvent[]> {
      if (run.signal?.aborted) return;
      if (failure !== null) return yield [problemFile(root, stat ?? undefined, null, 0, failure)];
      const located = { ...root, stat: stat! };
      yield* memberBatches(located, run, memberPassEntries(root.absPath, listing), file, budgetOf(), (error) =>
        isCutArchive(error)
          ? problemFile(root, stat!, error.member, 0, { code: 'truncated_archive', message: error.message })
          : problemFile(root, stat!, null, 0, {
              code: 'read_error',
              message: `the archive cannot be listed: ${describe(error)}`,
            }),
      );
    },
  };
}

/** A zip file's members, read in place by the threads; a zip inside it read from memory. */
function fileBody(
  root: SourceRoot,
  run: SourceRun,
  stat: () => { size: number; mtimeMs: number },
  budget: () => InflateBudget,
): ZipBody {
  return {
    prefix: '',
    locate: (entry) => ({
      kind: 'zip',
      archive: root.absPath,
      headerOffset: entry.headerOffset,
      compressedSize: entry.compressedSize,
      size: entry.size,
      method: entry.method,
      crc32: entry.crc32,
    }),
    nested: (entry) => nestedBatches(root, run, stat(), entry, budget()),
  };
}

/** Why a zip cannot be listed at all: the archive's own error line. */
function listingFailure(error: unknown): FileProblem {
  if (error instanceof ArchiveError && error.code === 'unsupported_format')
    return { code: 'unsupported_format', message: describe(error) };
  return {
    code: isMissingDirectory(error) ? 'corrupt_file' : 'read_error',
    message: `the archive cannot be listed: ${describe(error)}`,
  };
}

/**
 * A sidecar's text into the run's tree; a damaged one costs its photo the sidecar, nothing more.
 * False when the archive's budget refuses to inflate it.
 */
async function takeSidecar(
  run: SourceRun,
  entry: ZipEntry,
  kind: MemberKind,
  read: (limit: number) => Promise<Buffer | null>,
  budget: InflateBudget,
): Promise<boolean> {
  if (kind === null || !('keep' in kind) || kind.keep !== 'sidecar') return true;
  if (entry.size > MAX_SIDECAR_BYTES || entry.compressedSize > MAX_SIDECAR_BYTES) return true;
  if (!budget.take(entry.size)) return false;
  const text = (await read(MAX_SIDECAR_BYTES).catch(() => null))?.toString('utf8') ?? null;
  if (text !== null) run.index.add(entry.name, text);
  return true;
}

/**
 * Lists a zip for `prepare` and keeps the entries for the member pass (while the run holds
 * fewer than its limit). A zip without a central directory is walked by its local headers,
 * and that listing is always kept.
 */
async function* firstListing(absPath: string, listing: Listing, run: SourceRun): AsyncGenerator<ZipEntry> {
  const keep = (entry: ZipEntry): void => {
    if (listing.entries === null) return;
    if (!listing.recovered && run.held.entries >= run.held.limit) {
      run.held.entries -= listing.entries.length;
      listing.entries = null;
      return;
    }
    listing.entries.push(entry);
    run.held.entries += 1;
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
  run.held.entries -= listing.entries?.length ?? 0;
  listing.entries = [];
  listing.recovered = true;
  try {
    for await (const entry of localHeaders(absPath)) {
      keep(entry);
      yield entry;
    }
  } catch (error) {
    if (!isCutArchive(error)) throw error;
    listing.cut = error;
  }
}

/** The member pass's listing of a zip: the one kept by `prepare`, or the directory read again. */
async function* memberPassEntries(absPath: string, listing: Listing): AsyncGenerator<ZipEntry> {
  if (listing.entries) {
    yield* listing.entries;
    if (listing.cut) throw listing.cut;
    return;
  }
  yield* centralDirectory(absPath);
}

/** The media members of a listing by the member pass's rules; a nested zip counts its own bytes. */
function tallyMedia(run: SourceRun, entries: Iterable<ZipEntry>): MediaTally {
  const tally: MediaTally = { files: 0, bytes: 0, nested: false };
  const skipped = new Set<string>();
  for (const entry of entries)
    if (!entry.folder) addToTally(tally, entry, classifyMember(run, entry.name, skipped, isPhotoDetailsName));
  return tally;
}

function addToTally(tally: MediaTally, entry: ZipEntry, kind: MemberKind): void {
  if (kind === null || !('keep' in kind)) return;
  if (kind.keep === 'nested') {
    tally.nested = true;
    tally.bytes += entry.size;
  } else if (kind.keep === 'media') {
    tally.files += 1;
    tally.bytes += entry.size;
  }
}

/** The walk events of a zip's members, in batches; `onError` turns a listing that breaks off into its last event. */
async function* memberBatches(
  root: Located,
  run: SourceRun,
  entries: AsyncIterable<ZipEntry>,
  body: ZipBody,
  budget: InflateBudget,
  onError: (error: unknown) => WalkEvent,
): AsyncGenerator<WalkEvent[]> {
  let events: WalkEvent[] = [];
  const skipped = new Set<string>();
  /** The one line of an archive past its budget: its members after it are not read. */
  const overBudget = (): WalkEvent =>
    problemFile(root, root.stat, null, 0, { code: 'archive_limit', message: budget.problem });
  try {
    for await (const entry of entries) {
      if (run.signal?.aborted) return;
      if (entry.folder) continue;
      const kind = classifyMember(run, entry.name, skipped, isPhotoDetailsName, root.absPath);
      if (kind === null) continue;
      const name = body.prefix + entry.name;
      if ('skip' in kind) events.push(skippedMember(root, kind.skip, body.prefix + kind.at));
      else if (kind.keep === 'nested' && body.nested !== null) {
        if (events.length > 0) yield events;
        events = [];
        if (!budget.take(entry.size)) return yield [overBudget()];
        yield* body.nested(entry);
      } else if (kind.keep === 'nested') events.push(skippedMember(root, 'archive', name));
      else if (kind.keep !== 'media') events.push(skippedMember(root, 'sidecar', name));
      else {
        const member = zipMember(root, run, entry, name, body);
        // A member refused on its own costs nothing; one to be read spends the budget.
        if (member.member?.task && !budget.take(entry.size)) {
          events.push(overBudget());
          return yield events;
        }
        events.push(member);
      }
      if (events.length >= BATCH) {
        yield events;
        events = [];
      }
    }
  } catch (error) {
    events.push(onError(error));
  }
  if (events.length > 0) yield events;
}

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

/** A media member for the threads, with the sidecars the run's tree matches to it. */
function zipMember(root: Located, run: SourceRun, entry: ZipEntry, name: string, body: ZipBody): WalkFile {
  const sidecars = run.index.find(entry.name);
  const located = memberProblem(entry) ?? body.locate(entry);
  const problem = 'code' in located ? located : null;
  const task =
    'code' in located
      ? null
      : {
          absPath: root.absPath + MEMBER_SEPARATOR + name,
          source: located,
          sidecars: { takeout: sidecars.takeout, xmp: sidecars.xmp },
        };
  // A Takeout part beside .tgz parts: its JSON may be in one of them, read after every zip.
  if (
    task !== null &&
    run.streams > 0 &&
    body.prefix === '' &&
    sidecars.takeout === null &&
    (run.index.size > 0 || /(^|\/)takeout\//i.test(entry.name))
  )
    run.late.add(task.absPath);
  // crc32 stands in for the inode: a member is the same when its name, size and CRC are.
  return memberFile(
    root,
    root.stat,
    name,
    { size: entry.size, ino: entry.crc32, sidecarPrint: sidecars.print },
    { task, problem, uncached: false },
  );
}

/**
 * A zip inside a zip, read into memory (bounded) and listed like any zip, one level deep:
 * its sidecars and CSVs join the run's tree before its members; its members' compressed
 * bytes are handed to the threads, which inflate them. A zip inside it is only counted.
 */
async function* nestedBatches(
  root: SourceRoot,
  run: SourceRun,
  stat: { size: number; mtimeMs: number },
  outer: ZipEntry,
  budget: InflateBudget,
): AsyncGenerator<WalkEvent[]> {
  const refuse = (problem: FileProblem): WalkEvent[] => [problemFile(root, stat, outer.name, outer.size, problem)];
  const data = await readNested(root, outer);
  if ('code' in data) return yield refuse(data);
  const entries: ZipEntry[] = [];
  const overlap = createOverlapCheck();
  try {
    for await (const entry of centralDirectory(data)) {
      entries.push(entry);
      overlap.add(entry);
    }
  } catch (error) {
    return yield refuse({ code: 'corrupt_file', message: `the nested zip cannot be listed: ${describe(error)}` });
  }
  const overlapping = overlap.problem();
  if (overlapping !== null) return yield refuse({ code: 'archive_limit', message: overlapping });
  // Sidecars and CSVs first, so every member below finds them.
  for (const entry of entries) {
    if (entry.folder || entry.encrypted) continue;
    const kind = classifyMember(run, entry.name, new Set(), isPhotoDetailsName);
    if (kind !== null && 'keep' in kind && kind.keep === 'details') {
      if (!budget.take(entry.size))
        return yield [problemFile(root, stat, null, 0, { code: 'archive_limit', message: budget.problem })];
      // Its rows under the outer archive: its members' records name that one.
      await readDetails(run, memberStream(data, entry), {
        part: root.absPath,
        absPath: memberPath(root.absPath, `${outer.name}${MEMBER_SEPARATOR}${entry.name}`),
      });
    } else if (!(await takeSidecar(run, entry, kind, async (limit) => inflateFromBuffer(data, entry, limit), budget)))
      return yield [problemFile(root, stat, null, 0, { code: 'archive_limit', message: budget.problem })];
  }
  const body: ZipBody = {
    prefix: `${outer.name}${MEMBER_SEPARATOR}`,
    locate: (entry) => locateInMemory(data, entry),
    nested: null,
  };
  yield* memberBatches({ ...root, stat }, run, toAsync(entries), body, budget, (error) => {
    throw error;
  });
}

/** A nested zip's bytes (bounded), or why it is not read. */
async function readNested(root: SourceRoot, outer: ZipEntry): Promise<Buffer | FileProblem> {
  if (outer.encrypted)
    return { code: 'unsupported_format', message: 'the nested zip is encrypted; camroll does not decrypt archives' };
  const limit = limitProblem(outer.size, outer.compressedSize);
  if (limit !== null) return { code: 'archive_limit', message: limit };
  if (outer.size > ARCHIVE_LIMITS.nestedZipBytes)
    return {
      code: 'archive_limit',
      message: `a zip inside a zip is read in memory up to ${ARCHIVE_LIMITS.nestedZipBytes} bytes; extract this one first`,
    };
  const handle = await fsp.open(root.absPath, 'r');
  try {
    const data = await readMemberBytes(handle, outer, ARCHIVE_LIMITS.nestedZipBytes);
    return (
      data ?? { code: 'corrupt_file', message: 'the nested zip cannot be read (damaged, or not what its header says)' }
    );
  } finally {
    await handle.close();
  }
}

/** A nested zip's member: its compressed bytes (a copy of its own: it moves to a worker thread). */
function locateInMemory(zip: Buffer, entry: ZipEntry): MemberSource | FileProblem {
  if (entry.size > ARCHIVE_LIMITS.inMemoryBytes)
    return {
      code: 'archive_limit',
      message: `a member of a nested zip is read in memory up to ${ARCHIVE_LIMITS.inMemoryBytes} bytes`,
    };
  const compressed = compressedInBuffer(zip, entry);
  if (compressed === null)
    return { code: 'corrupt_file', message: 'the nested zip has no whole member where its directory says' };
  // Only the compressed bytes are cut out here: the thread inflates and checks them.
  return {
    kind: 'compressed',
    data: new Uint8Array(compressed),
    method: entry.method,
    size: entry.size,
    crc32: entry.crc32,
  };
}

async function* toAsync<T>(items: Iterable<T>): AsyncGenerator<T> {
  yield* items;
}
