import { createRequire } from 'node:module';
import { Transform, type TransformCallback } from 'node:stream';
import { ARCHIVE_LIMITS } from './types.js';

/**
 * A tar stream's framing, checked before tar-stream reads it. tar-stream holds a PAX header,
 * a GNU long name or long link whole before the member it names, however large it says it
 * is: a 2 MB `.tgz` whose PAX header claims a 2 GiB path aborted the process. The guard
 * walks the 512-byte headers and the sizes they declare (decoded by tar-stream's own header
 * code, so both read the same framing), passes the stream on untouched, and drops an
 * extended header past the cap together with the member it belongs to, which is reported
 * (`onDropped`) and skipped by its declared size: the members after it are read. It also
 * counts the bytes that pass, and ends the stream (ArchiveLimitError) past `budgetBytes`.
 */

/** tar-stream's header codec (it has no typings of its own for this file). */
interface TarHeaders {
  decode(
    buf: Buffer,
    filenameEncoding: string,
    allowUnknownFormat: boolean,
  ): { name: string; size: number; type: string } | null;
  decodePax(buf: Buffer): Record<string, string>;
}

let codec: TarHeaders | null = null;
const headers = (): TarHeaders => (codec ??= createRequire(import.meta.url)('tar-stream/headers.js') as TarHeaders);

/** The header types tar-stream holds whole and applies to the next member. */
const EXTENDED = new Map([
  ['pax-header', 'PAX extended header'],
  ['pax-global-header', 'PAX global header'],
  ['gnu-long-path', 'GNU long name'],
  ['gnu-long-link-path', 'GNU long link name'],
]);

const BLOCK = 512;
const padded = (size: number): number => Math.ceil(size / BLOCK) * BLOCK;

/** A member left out: the name its own header gives (null for a global header or one at the end), and why. */
export interface DroppedMember {
  name: string | null;
  message: string;
}

/** The stream went past its budget of bytes. */
export class ArchiveLimitError extends Error {}

export interface TarGuardOptions {
  /** The most an extended header may hold (default ARCHIVE_LIMITS.extendedHeaderBytes). */
  maxHeaderBytes?: number;
  /** The most bytes the stream may give (default: no limit). */
  budgetBytes?: number;
  /** The message of the budget's error. */
  budgetMessage?: string;
  onDropped(member: DroppedMember): void;
}

type Mode = 'header' | 'pass' | 'skip' | 'raw';

/**
 * How many times the budget the bytes of dropped headers and members may take: they cost only
 * gunzip's time (about 1 GB/s), never memory, so a 2 GiB PAX header in a 2 MB .tgz is skipped and
 * the members after it are read; a stream made of nothing else still ends.
 */
const SKIP_FACTOR = 4;

export class TarGuard extends Transform {
  private readonly max: number;
  private readonly budget: number;
  private readonly header = Buffer.alloc(BLOCK);
  private filled = 0;
  private mode: Mode = 'header';
  /** Bytes of data and padding left in `pass` or `skip`. */
  private remaining = 0;
  private seen = 0;
  /** Of `seen`, the bytes of dropped headers and members, skipped without being passed on. */
  private skipped = 0;
  /** Set once the stream went past its budget (the error it ended with). */
  exceeded: ArchiveLimitError | null = null;
  /** A small PAX header's text, collected as it passes (its `size` frames the next member). */
  private pax: { global: boolean; parts: Buffer[]; left: number } | null = null;
  private paxGlobal: Record<string, string> | null = null;
  private paxLocal: Record<string, string> | null = null;
  /** The extended header dropped, whose member is dropped next. */
  private dropping: { kind: string; size: number } | null = null;

  constructor(private readonly options: TarGuardOptions) {
    super();
    this.max = options.maxHeaderBytes ?? ARCHIVE_LIMITS.extendedHeaderBytes;
    this.budget = options.budgetBytes ?? Number.POSITIVE_INFINITY;
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    for (let at = 0; at < chunk.length; ) {
      if (this.mode === 'raw') {
        this.push(chunk.subarray(at));
        break;
      }
      if (this.mode === 'header') {
        const n = Math.min(BLOCK - this.filled, chunk.length - at);
        chunk.copy(this.header, this.filled, at, at + n);
        this.filled += n;
        at += n;
        if (this.filled === BLOCK) {
          this.filled = 0;
          this.onHeader();
        }
        continue;
      }
      const n = Math.min(this.remaining, chunk.length - at);
      const part = chunk.subarray(at, at + n);
      if (this.mode === 'pass') {
        this.push(part);
        if (this.pax !== null && this.pax.left > 0) {
          const text = part.subarray(0, this.pax.left);
          this.pax.parts.push(Buffer.from(text));
          this.pax.left -= text.length;
        }
      } else this.skipped += n;
      this.remaining -= n;
      at += n;
      if (this.remaining === 0) this.endOfData();
    }
    // Bytes passed on count against the budget; the bytes of a dropped header and its member are
    // only inflated and let go, so they count against a larger allowance (SKIP_FACTOR times).
    this.seen += chunk.length;
    if (this.seen - this.skipped > this.budget || this.skipped > this.budget * SKIP_FACTOR) {
      // Inside an extended header being skipped: that header is why, and the line says so.
      const inside =
        this.dropping === null
          ? ''
          : ` (it stopped inside a ${this.dropping.kind} that declares ${this.dropping.size} bytes, more ` +
            `than the ${this.max}-byte limit)`;
      this.exceeded = new ArchiveLimitError(
        `${this.options.budgetMessage ?? `the archive gives more than ${this.budget} bytes`}${inside}`,
      );
      return callback(this.exceeded);
    }
    callback();
  }

  override _flush(callback: TransformCallback): void {
    if (this.dropping !== null) this.reportDropped(null);
    callback();
  }

  private endOfData(): void {
    this.mode = 'header';
    if (this.pax === null) return;
    const fields = headers().decodePax(Buffer.concat(this.pax.parts));
    if (this.pax.global) this.paxGlobal = fields;
    else this.paxLocal = this.paxGlobal === null ? fields : { ...this.paxGlobal, ...fields };
    this.pax = null;
  }

  private reportDropped(name: string | null): void {
    const dropped = this.dropping!;
    this.dropping = null;
    this.options.onDropped({
      name,
      message:
        `the member's ${dropped.kind} declares ${dropped.size} bytes, more than the ${this.max}-byte limit: ` +
        `the member is skipped (an archive made to exhaust memory, or damaged)`,
    });
  }

  private onHeader(): void {
    let decoded: ReturnType<TarHeaders['decode']>;
    try {
      decoded = headers().decode(this.header, 'utf-8', false);
    } catch {
      // Not a header: from here on the stream is tar-stream's alone, which reports it.
      this.mode = 'raw';
      this.push(Buffer.from(this.header));
      return;
    }
    if (decoded === null) {
      this.push(Buffer.from(this.header)); // a zero block: the end of the archive
      return;
    }
    const kind = EXTENDED.get(decoded.type);
    if (!Number.isSafeInteger(decoded.size) || decoded.size < 0) {
      this.mode = 'raw';
      this.push(Buffer.from(this.header));
      return;
    }
    if (kind !== undefined) {
      if (decoded.size > this.max || this.dropping !== null) {
        // An extended header over the cap, or one more for a member already dropped.
        if (this.dropping === null) {
          this.dropping = { kind, size: decoded.size };
          // A global header belongs to no member: said at once, nothing else dropped.
          if (decoded.type === 'pax-global-header') this.reportDropped(null);
        }
        this.skipBytes(padded(decoded.size));
        return;
      }
      this.push(Buffer.from(this.header));
      if (decoded.type === 'pax-header' || decoded.type === 'pax-global-header')
        this.pax = { global: decoded.type === 'pax-global-header', parts: [], left: decoded.size };
      this.passBytes(padded(decoded.size));
      return;
    }
    // A member: its size as tar-stream takes it (a PAX `size` wins; a folder has no data).
    const local = this.paxLocal;
    this.paxLocal = null;
    let size = decoded.size;
    if (local?.size) size = Number.parseInt(local.size, 10);
    if (decoded.type === 'directory') size = 0;
    if (!Number.isSafeInteger(size) || size < 0) {
      this.mode = 'raw';
      this.push(Buffer.from(this.header));
      return;
    }
    if (this.dropping !== null) {
      this.reportDropped(decoded.name);
      this.skipBytes(padded(size));
      return;
    }
    this.push(Buffer.from(this.header));
    this.passBytes(padded(size));
  }

  private passBytes(bytes: number): void {
    this.remaining = bytes;
    this.mode = bytes > 0 ? 'pass' : 'header';
    if (bytes === 0 && this.pax !== null) this.endOfData();
  }

  private skipBytes(bytes: number): void {
    this.remaining = bytes;
    this.mode = bytes > 0 ? 'skip' : 'header';
  }
}

/** A guard for one tar stream. */
export function createTarGuard(options: TarGuardOptions): TarGuard {
  return new TarGuard(options);
}
