import * as fs from 'node:fs';
import * as fsp from 'node:fs/promises';
import { pipeline } from 'node:stream';
import * as zlib from 'node:zlib';
import type tar from 'tar-stream';
import { collect, collectEnds, drain } from '../archive/member-bytes.js';
import { isPhotoDetailsName } from '../archive/photo-details.js';
import { ArchiveLimitError, createTarGuard, type DroppedMember } from '../archive/tar-guard.js';
import { ARCHIVE_LIMITS, budgetProblem, heldBytes, inflateBudget, type MemberTask } from '../archive/types.js';
import { MAX_SIDECAR_BYTES } from '../extract/sidecars.js';
import { classifyPath } from '../classify.js';
import type { FileProblem } from '../types.js';
import {
  BATCH,
  classifyMember,
  describe,
  memberFile,
  problemFile,
  readDetails,
  skippedMember,
  type ArchiveSource,
  type SourceRoot,
  type SourceRun,
  type WalkEvent,
  type WalkFile,
} from './source.js';
import { MEMBER_SEPARATOR, memberPath } from './member-path.js';

/** Bytes of tar members read ahead of the threads in one batch. */
const HELD_BYTES = 8 * 1024 * 1024;
/**
 * Inflated bytes per chunk of a .tgz stream. zlib's default (16 KiB) hands the tar parser
 * and the member buffers tens of thousands of small chunks per gigabyte.
 */
const GUNZIP_CHUNK = 256 * 1024;
/** A 0-byte part, whatever its format (zip-list.ts says the same of a zip). */
const EMPTY_DOWNLOAD = 'the archive is empty: a download that never started';

type Stat = { size: number; mtimeMs: number };

/**
 * A tar stream (`.tar`, or gzipped `.tgz`/`.tar.gz`) as a source: read front to back once,
 * its members' bytes handed to the threads as they pass (a large one hashed here, only its
 * ends kept). It has no listing: its sidecars join the run's tree as they come, and a media
 * member read before a sidecar could match it is marked late (the scan gives it the sidecar
 * at the end). Its progress is how far its file has been read.
 */
export function openSource(root: SourceRoot, run: SourceRun): ArchiveSource {
  let stat: Stat | null = root.stat ?? null;
  let failure: FileProblem | null = null;
  let input: fs.ReadStream | null = null;
  let done = false;
  return {
    async prepare() {
      try {
        stat ??= await fsp.stat(root.absPath);
      } catch (error) {
        failure = { code: 'read_error', message: describe(error) };
      }
    },
    // A tar stream's members are known once it is read.
    totals: () => ({ files: 0, bytes: stat?.size ?? 0, final: false }),
    bytesRead: () => (done ? (stat?.size ?? 0) : (input?.bytesRead ?? 0)),
    async *batches(): AsyncGenerator<WalkEvent[]> {
      if (run.signal?.aborted) return;
      if (failure !== null) return yield [problemFile(root, undefined, null, 0, failure)];
      // tar-stream reads 0 bytes as an archive with no member; a real empty tar has its end
      // blocks, so 0 bytes is a download that never started (as a 0-byte zip says).
      if (stat!.size === 0)
        return yield [problemFile(root, stat!, null, 0, { code: 'truncated_archive', message: EMPTY_DOWNLOAD })];
      input = fs.createReadStream(root.absPath, { highWaterMark: 1024 * 1024 });
      try {
        yield* streamBatches({ ...root, stat: stat! }, run, input);
      } finally {
        done = true;
        input = null;
      }
    },
  };
}

/** The members of one tar stream, in batches bounded by count and by the bytes they hold. */
async function* streamBatches(
  root: SourceRoot & { stat: Stat },
  run: SourceRun,
  input: fs.ReadStream,
): AsyncGenerator<WalkEvent[]> {
  const extract = (await tarReader()).extract();
  // The guard caps the extended headers tar-stream would hold whole, and the stream's inflated bytes.
  const dropped: DroppedMember[] = [];
  const guard = createTarGuard({
    budgetBytes: inflateBudget(root.stat.size),
    budgetMessage: budgetProblem(root.stat.size),
    onDropped: (member) => dropped.push(member),
  });
  // A failure anywhere (a cut gzip stream, a bad header) ends the entries with that error.
  if (root.kind === 'tgz')
    pipeline(input, zlib.createGunzip({ chunkSize: GUNZIP_CHUNK }), guard, extract, () => undefined);
  else pipeline(input, guard, extract, () => undefined);
  let events: WalkEvent[] = [];
  /** The members the guard dropped: a line each, with the code of a limit. */
  const droppedLines = (): WalkEvent[] =>
    dropped
      .splice(0)
      .map((member) =>
        problemFile(root, root.stat, member.name, 0, { code: 'archive_limit', message: member.message }),
      );
  let held = 0; // bytes of the members in `events`
  // A full batch waits while sidecars follow (a tar sorted by name puts `IMG_1.jpg.xmp` after
  // `IMG_1.jpg`), and goes at the next member's header: no member's bytes wait longer.
  let full = false;
  const skipped = new Set<string>();
  let current: string | null = null;
  try {
    for await (const entry of extract) {
      if (run.signal?.aborted) {
        entry.resume();
        break;
      }
      if (full && (classifyPath(entry.header.name).kind !== 'sidecar' || events.length >= 2 * BATCH)) {
        yield withSidecarsMetSince(root, run, events);
        events = [];
        held = 0;
        full = false;
      }
      events.push(...droppedLines());
      current = entry.header.name;
      const event = await memberEvent(root, run, entry, skipped);
      if (run.signal?.aborted) break; // a member cut short by the stop is not a line
      if (guard.exceeded) throw guard.exceeded; // nor one cut short by the budget
      if (event !== null) events.push(event);
      if (event?.type === 'file' && event.member?.task) held += heldBytes(event.member.task.source);
      current = null;
      // Members' bytes are in memory: a batch is handed on by bytes too.
      if (events.length >= BATCH || held >= HELD_BYTES) full = true;
    }
  } catch (error) {
    events.push(...droppedLines());
    // Past the budget, the member being read may fail first with an error of its own.
    const limit = guard.exceeded ?? (error instanceof ArchiveLimitError ? error : null);
    events.push(
      limit !== null
        ? problemFile(root, root.stat, null, 0, { code: 'archive_limit', message: limit.message })
        : problemFile(root, root.stat, current, 0, {
            code: 'truncated_archive',
            message: `the archive is damaged or cut here; what came before was read (${describe(error)})`,
          }),
    );
  } finally {
    extract.destroy();
    input.destroy();
  }
  events.push(...droppedLines());
  if (events.length > 0) yield withSidecarsMetSince(root, run, events);
}

/**
 * A batch's members given the sidecars met since each was read (a tar sorted by name puts
 * `IMG_1.jpg.xmp` after `IMG_1.jpg`): what its threads then read is what reading the photo
 * beside its sidecars gives, XMP included. Later than its batch only a Takeout JSON still
 * applies (late-sidecars.ts).
 */
function withSidecarsMetSince(root: SourceRoot, run: SourceRun, events: WalkEvent[]): WalkEvent[] {
  for (const event of events) {
    const task = event.type === 'file' ? event.member?.task : undefined;
    if (event.type !== 'file' || !task || (task.sidecars.takeout !== null && task.sidecars.xmp !== null)) continue;
    const sidecars = run.index.find(event.absPath.slice(root.absPath.length + MEMBER_SEPARATOR.length));
    if (sidecars.takeout === task.sidecars.takeout && sidecars.xmp === task.sidecars.xmp) continue;
    task.sidecars = { takeout: sidecars.takeout, xmp: sidecars.xmp };
    event.sidecarFingerprint = `${event.sidecarFingerprint.slice(0, event.sidecarFingerprint.indexOf(':') + 1)}${sidecars.print}`;
    if (sidecars.takeout !== null) run.late.delete(event.absPath);
  }
  return events;
}

/** One tar entry's event (null for one left out unseen), its bytes read or drained. */
async function memberEvent(
  root: SourceRoot & { stat: Stat },
  run: SourceRun,
  entry: tar.Entry,
  skipped: Set<string>,
): Promise<WalkEvent | null> {
  const name = entry.header.name;
  const type = entry.header.type;
  const kind =
    type === 'file' || type === 'contiguous-file'
      ? classifyMember(run, name, skipped, isPhotoDetailsName, root.absPath)
      : null;
  if (kind === null || 'skip' in kind) {
    await drain(entry);
    return kind === null ? null : skippedMember(root, kind.skip, kind.at);
  }
  if (kind.keep === 'media') return tarMember(root, run, name, entry);
  if (kind.keep === 'nested') {
    // A zip inside a tar stream is not opened (a stream cannot seek to its directory): counted.
    await drain(entry);
    return skippedMember(root, 'archive', name);
  }
  const size = entry.header.size ?? 0;
  if (kind.keep === 'details') {
    // Streamed as it passes, every row kept (up to the run's cap): a stream has no listing of its photos.
    await readDetails(run, keepOpen(entry), { part: root.absPath, absPath: memberPath(root.absPath, name) });
    await drain(entry); // what a refused CSV left unread: the stream goes on past it
  } else if (size > MAX_SIDECAR_BYTES) await drain(entry);
  else run.index.add(name, Buffer.from(await collect(entry, size)).toString('utf8'));
  return skippedMember(root, 'sidecar', name);
}

async function tarMember(
  root: SourceRoot & { stat: Stat },
  run: SourceRun,
  name: string,
  entry: tar.Entry,
): Promise<WalkFile> {
  const size = entry.header.size ?? 0;
  let source: MemberTask['source'];
  if (size > ARCHIVE_LIMITS.inMemoryBytes) {
    // Too large to hold (a long video): hashed here as it passes, only its ends kept for the readers.
    const ends = await collectEnds(entry, {
      size,
      headBytes: ARCHIVE_LIMITS.endsHeadBytes,
      tailBytes: ARCHIVE_LIMITS.endsTailBytes,
      signal: run.signal,
    });
    if (ends === null)
      return problemFile(root, root.stat, name, size, {
        code: 'truncated_archive',
        message: 'the archive ends inside this member',
      });
    source = { kind: 'ends', size, ...ends };
  } else source = { kind: 'bytes', data: await collect(entry, size) };
  const sidecars = run.index.find(name);
  const file = memberFile(
    root,
    root.stat,
    name,
    { size, ino: 0, sidecarPrint: sidecars.print },
    { task: null, problem: null, uncached: true },
  );
  // Held only where a JSON may still come: a Takeout tree, or a run that has met sidecars.
  // Elsewhere (a tar of plain photos, an iCloud export) records flow as they are read.
  if (sidecars.print === '' && (run.index.size > 0 || /(^|\/)takeout\//i.test(name))) run.late.add(file.absPath);
  file.member.task = { absPath: file.absPath, source, sidecars: { takeout: sidecars.takeout, xmp: sidecars.xmp } };
  return file;
}

/** The tar reader, loaded when the first tar stream is read: a run of zips never needs it. */
let tarModule: Promise<typeof tar> | null = null;
const tarReader = (): Promise<typeof tar> =>
  (tarModule ??= import('tar-stream').then((loaded) => (loaded as { default?: typeof tar }).default ?? loaded));

/** A tar entry's chunks for a reader that may stop early without ending the entry (the stream drains it). */
function keepOpen(entry: tar.Entry): AsyncIterable<Buffer> {
  const chunks = (entry as AsyncIterable<Buffer>)[Symbol.asyncIterator]();
  return {
    [Symbol.asyncIterator]: () => ({
      next: () => chunks.next(),
      return: async () => ({ done: true as const, value: undefined }),
    }),
  };
}
