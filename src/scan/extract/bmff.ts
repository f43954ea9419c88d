import type { ByteSource } from '../types.js';
import { ascii, readRange, viewOf } from './bytes.js';
import { ParseProblem } from './errors.js';

/** One ISO-BMFF box: where it starts, where its payload starts, where it ends. */
export interface Box {
  type: string;
  start: number;
  payloadStart: number;
  end: number;
  /** Set on the last top-level box when the file ends inside it: `end` is then the file's end. */
  cut?: boolean;
}

/** Boxes per level: real files have a handful; a hostile one must not make us loop. */
export const MAX_BOXES = 4096;

/**
 * Lists the boxes between `start` and `end` in a file, reading only their headers (never
 * the payloads, so `mdat` costs nothing). Handles 32-bit, 64-bit (`size` 1) and to-end
 * (`size` 0) sizes. A box running past `end` is `corrupt_file` inside a parent; at the top
 * level it is the file's last box, cut by an interrupted copy: it is listed with `cut` set
 * and `end` at the end of the file, so the boxes before it stay readable (see `whole`).
 */
export async function listBoxes(bytes: ByteSource, start: number, end: number, topLevel = false): Promise<Box[]> {
  const boxes: Box[] = [];
  let pos = start;
  while (pos + 8 <= end) {
    if (boxes.length >= MAX_BOXES) throw new ParseProblem('corrupt_file', `more than ${MAX_BOXES} boxes at ${start}`);
    const header = await readRange(bytes, pos, Math.min(16, end - pos));
    let box: Box;
    try {
      box = parseBoxHeader(header, pos, end, topLevel);
    } catch (error) {
      if (!(error instanceof ParseProblem) || error.code !== 'truncated_file') throw error;
      boxes.push({ type: ascii(header, 4, 8), start: pos, payloadStart: Math.min(pos + 8, end), end, cut: true });
      break;
    }
    boxes.push(box);
    pos = box.end;
  }
  return boxes;
}

/** The box itself, or `truncated_file` when the file ends inside it (its content is needed whole). */
export function whole(box: Box): Box {
  if (!box.cut) return box;
  const where = `box '${printable(box.type)}' at ${box.start}`;
  throw new ParseProblem('truncated_file', `${where} runs past the end of the file`);
}

/** The same walk over bytes already in memory (`data` starts at file offset `base`). */
export function listBoxesIn(data: Uint8Array, base = 0): Box[] {
  const boxes: Box[] = [];
  let pos = 0;
  while (pos + 8 <= data.length) {
    if (boxes.length >= MAX_BOXES) throw new ParseProblem('corrupt_file', `more than ${MAX_BOXES} boxes`);
    const box = parseBoxHeader(data.subarray(pos, pos + 16), base + pos, base + data.length, false);
    boxes.push(box);
    pos = box.end - base;
  }
  return boxes;
}

function parseBoxHeader(header: Uint8Array, pos: number, end: number, topLevel: boolean): Box {
  const view = viewOf(header);
  let size = view.getUint32(0);
  const type = ascii(header, 4, 8);
  let headerSize = 8;
  if (size === 1) {
    if (header.length < 16)
      throw new ParseProblem(topLevel ? 'truncated_file' : 'corrupt_file', `64-bit box header cut at ${pos}`);
    size = Number(view.getBigUint64(8));
    headerSize = 16;
  } else if (size === 0) {
    size = end - pos;
  }
  if (size < headerSize)
    throw new ParseProblem('corrupt_file', `box '${printable(type)}' at ${pos} has impossible size ${size}`);
  if (pos + size > end) {
    throw new ParseProblem(
      topLevel ? 'truncated_file' : 'corrupt_file',
      `box '${printable(type)}' at ${pos} runs past the end of its ${topLevel ? 'file' : 'parent'}`,
    );
  }
  return { type, start: pos, payloadStart: pos + headerSize, end: pos + size };
}

/** A box type as text, with anything unprintable as `?`. */
export function printable(type: string): string {
  return type.replace(/[^\x20-\x7e]/g, '?');
}

/** The payload of a box read into memory, refusing anything larger than `maxBytes`. */
export async function readPayload(bytes: ByteSource, box: Box, maxBytes: number): Promise<Uint8Array> {
  whole(box);
  const length = box.end - box.payloadStart;
  if (length > maxBytes)
    throw new ParseProblem('corrupt_file', `box '${printable(box.type)}' of ${length} bytes is too large for metadata`);
  return readRange(bytes, box.payloadStart, length);
}

/** The `ftyp` brands (major first), or an empty list. */
export function brandsOf(ftypPayload: Uint8Array): string[] {
  const brands = [ascii(ftypPayload, 0, 4)];
  for (let i = 8; i + 4 <= ftypPayload.length && brands.length < 64; i += 4) brands.push(ascii(ftypPayload, i, i + 4));
  return brands;
}
