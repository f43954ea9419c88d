import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import path from 'node:path';
import { takeoutJsonCandidates, takeoutTitle, takeoutYearFolder, xmpCandidates } from '../extract/sidecar-names.js';
import { MAX_SIDECAR_BYTES } from '../extract/sidecars.js';

/** The sidecars matched to one member, and what the scan cache keys them on. */
export interface MatchedSidecars {
  takeout: string | null;
  xmp: string | null;
  /** Names and content digests of the matched sidecars ('' when none). */
  print: string;
}

/**
 * Every sidecar (Takeout JSON, XMP) of every archive given in one run, in one tree keyed by
 * the folder inside the archive: the parts of an export are one tree, so a JSON in part 2
 * finds its photo in part 1. The name rules are the folder scan's (sidecar-names.ts).
 * Folders given beside archives join it, each sidecar tagged with the folder it lies in.
 * Only sidecar texts are held (a Takeout JSON is about 1 KB), the folders' until released.
 */
export interface SidecarIndex {
  /**
   * Holds a sidecar under its member path. `folder` is the folder on disk it was read from
   * (a folder given beside archives); without it, it is an archive's. An archive's never
   * replaces a folder's of the same name (a part read again must not undo what the folder
   * gave its members); a folder's replaces any; between archives the last read wins (a part
   * downloaded again replaces its own earlier copy).
   */
  add(member: string, text: string, folder?: string): void;
  /**
   * The sidecars matched to a member by the name rules. `ownFolder`, for a file on disk: its
   * folder's own sidecars are chosen from first (as the folder reader would), each kind
   * (Takeout JSON, XMP) from the rest of the tree only when its folder has none of it.
   */
  find(member: string, ownFolder?: string): MatchedSidecars;
  /**
   * Drops the sidecars read from `folder` (on disk) under the tree's folder `dir` that are no
   * longer among `present` (its sidecar names now, by lower-case name): one deleted since is
   * not applied, as a fresh run would not (an archive's of the same name comes back).
   */
  forget(dir: string, folder: string, present: ReadonlyMap<string, string>): void;
  /**
   * Lets go of the folders' sidecar texts, keeping their names and where they lie: found
   * again they are read from disk as they are now (a fresh run would read them so). What a
   * long watch keeps is then the archives' sidecars, which cannot be read again cheaply.
   */
  release(): void;
  /**
   * The sidecars no media file has claimed so far (none of their names was a candidate of any
   * file looked up): left without their media, reported at the end of a run. By member path.
   */
  unclaimed(): string[];
  readonly size: number;
}

interface Held {
  name: string;
  text: string;
  digest: string;
}

/** A folder's sidecar: its text null once released (read again from `from` when matched). */
interface FolderHeld {
  name: string;
  text: string | null;
  digest: string;
  from: string;
}

/** One name's sidecars: a folder's copy shadows an archive's. */
interface Slot {
  folder?: FolderHeld;
  archive?: Held;
  /** A media file looked up has this name among its candidates. */
  claimed?: boolean;
}

const digestOf = (text: string): string => createHash('sha1').update(text).digest('base64url').slice(0, 12);

/**
 * A member's folder inside its archive, as the sidecar tree keys it (`./` and leading `/`
 * dropped; the folder's name in NFC with no-break spaces as spaces, so a part unzipped on a
 * Mac or a localized folder written two ways is one folder).
 */
export function folderKey(member: string): { dir: string; base: string } {
  const clean = member.replace(/^(\.\/|\/)+/, '');
  const slash = clean.lastIndexOf('/');
  if (slash < 0) return { dir: '', base: clean };
  const dir = clean.slice(0, slash);
  // Most names are ASCII: nothing to normalise.
  const key = /^[\x20-\x7e]*$/.test(dir) ? dir : dir.normalize('NFC').replace(/[\u00a0\u202f]/g, ' ');
  return { dir: key, base: clean.slice(slash + 1) };
}

/** The folder holding `dir` ('' for a top-level one). */
const parentOf = (dir: string): string => (dir.lastIndexOf('/') < 0 ? '' : dir.slice(0, dir.lastIndexOf('/')));

/** Creates an empty index. */
export function createSidecarIndex(): SidecarIndex {
  // Per folder key, by lower-case name: the listing the name rules (sidecar-names.ts) match against.
  const folders = new Map<string, Map<string, Slot>>();
  // Takeout's year folders by the folder holding them: an album's photo finds its JSON there.
  const yearFolders = new Map<string, string[]>();
  // Per folder key, its JSONs by lower-case title: built on the first miss, dropped on an add.
  const titles = new Map<string, Map<string, string | null>>();
  let size = 0;
  return {
    get size() {
      return size;
    },
    add(member, text, folder) {
      const { dir, base } = folderKey(member);
      let held = folders.get(dir);
      if (!held) {
        folders.set(dir, (held = new Map()));
        if (takeoutYearFolder(dir.slice(dir.lastIndexOf('/') + 1)) !== null) {
          const parent = parentOf(dir);
          yearFolders.set(parent, [...(yearFolders.get(parent) ?? []), dir]);
        }
      }
      titles.delete(dir);
      const lower = base.toLowerCase();
      let slot = held.get(lower);
      if (!slot) {
        held.set(lower, (slot = {}));
        size += 1;
      }
      if (folder !== undefined) slot.folder = { name: base, text, digest: digestOf(text), from: folder };
      else slot.archive = { name: base, text, digest: digestOf(text) };
    },
    forget(dir, folder, present) {
      const held = folders.get(dir);
      if (held) size -= forgetIn(held, folder, present);
    },
    release() {
      for (const held of folders.values()) for (const slot of held.values()) if (slot.folder) slot.folder.text = null;
    },
    unclaimed: () => unclaimedIn(folders),
    find(member, ownFolder) {
      const { dir, base } = folderKey(member);
      const held = folders.get(dir);
      const jsonNames = takeoutJsonCandidates(base);
      const json =
        pickIn(held, jsonNames, ownFolder) ??
        byTitle(dir, held, base) ??
        // An album's copy whose JSON Takeout wrote only beside the year folder's copy.
        fromYearFolder(dir, (yearDir) => pickIn(folders.get(yearDir), jsonNames, ownFolder));
      const xmp = pickIn(held, xmpCandidates(base), ownFolder);
      const print = [json, xmp]
        .filter((entry): entry is Held => entry !== null)
        .map((entry) => `${entry.name}:${entry.digest}`)
        .join('|');
      return { takeout: json?.text ?? null, xmp: xmp?.text ?? null, print };
    },
  };

  /** The JSON of `dir` whose title is `base`, when exactly one has it (the last rule: sidecar-names.ts). */
  function byTitle(dir: string, held: Map<string, Slot> | undefined, base: string): Held | null {
    if (!held) return null;
    let byName = titles.get(dir);
    if (!byName) {
      byName = new Map();
      for (const [lower, slot] of held) {
        if (!lower.endsWith('.json')) continue;
        const text = textOf(slot)?.text;
        const title = text === undefined ? null : takeoutTitle(text);
        if (title === null) continue;
        const key = title.toLowerCase();
        byName.set(key, byName.has(key) ? null : lower);
      }
      titles.set(dir, byName);
    }
    const lower = byName.get(base.normalize('NFC').toLowerCase());
    const slot = lower == null ? undefined : held.get(lower);
    if (!slot) return null;
    slot.claimed = true;
    return textOf(slot);
  }

  /** What `find` gives in the year folders beside an album folder `dir`, when exactly one gives it. */
  function fromYearFolder(dir: string, find: (yearDir: string) => Held | null): Held | null {
    if (takeoutYearFolder(dir.slice(dir.lastIndexOf('/') + 1)) !== null) return null; // a year folder's own
    let found: Held | null = null;
    for (const yearDir of yearFolders.get(parentOf(dir)) ?? []) {
      const held = find(yearDir);
      if (held === null) continue;
      if (found !== null && found.digest !== held.digest) return null; // two years: not this rule's to choose
      found = held;
    }
    return found;
  }
}

/** The first candidate the folder holds (its own folder's first); every one present is claimed. */
function pickIn(
  inFolder: Map<string, Slot> | undefined,
  candidates: string[],
  ownFolder: string | undefined,
): Held | null {
  if (!inFolder) return null;
  let own: Held | null = null;
  let any: Held | null = null;
  for (const candidate of candidates) {
    const slot = inFolder.get(candidate.toLowerCase());
    if (!slot) continue;
    slot.claimed = true;
    // The file's own folder's first (the folder reader's rules), then any the tree holds.
    if (own === null && ownFolder !== undefined && slot.folder?.from === ownFolder) own = textOf(slot);
    if (any === null) any = textOf(slot);
  }
  return own ?? any;
}

/** Drops a folder key's sidecars read from `folder` that it no longer holds (`present`); returns how many names went. */
function forgetIn(held: Map<string, Slot>, folder: string, present: ReadonlyMap<string, string>): number {
  let gone = 0;
  for (const [lower, slot] of held) {
    if (slot.folder?.from !== folder || present.has(lower)) continue;
    slot.folder = undefined;
    if (!slot.archive) {
      held.delete(lower);
      gone += 1;
    }
  }
  return gone;
}

/** The sidecars no media file claimed that describe one, by their path in the tree. */
function unclaimedIn(folders: Map<string, Map<string, Slot>>): string[] {
  const out: string[] = [];
  for (const [dir, held] of folders)
    for (const slot of held.values())
      if (!slot.claimed && describesMedia(slot)) {
        const name = (slot.folder ?? slot.archive)!.name;
        out.push(dir === '' ? name : `${dir}/${name}`);
      }
  return out;
}

/**
 * Whether a sidecar describes one media file: an XMP, or a JSON with Takeout's
 * `photoTakenTime` (an album's `metadata.json`, `print-subscriptions.json` and the like do not).
 */
function describesMedia(slot: Slot): boolean {
  const held = slot.folder ?? slot.archive;
  if (held === undefined) return false;
  if (!held.name.toLowerCase().endsWith('.json')) return true;
  return held.text?.includes('"photoTakenTime"') === true;
}

/** A name's sidecar as matched: the folder's (its text read again once released), else the archive's. */
function textOf(slot: Slot): Held | null {
  const folder = slot.folder;
  if (!folder) return slot.archive ?? null;
  if (folder.text !== null) return folder as Held;
  const text = readSidecarSync(path.join(folder.from, folder.name));
  // Gone since: as a fresh run, which would not find it (an archive's of the same name would be).
  return text === null ? (slot.archive ?? null) : { name: folder.name, text, digest: digestOf(text) };
}

/** A released folder sidecar's text, read now (null when it cannot be read). */
function readSidecarSync(file: string): string | null {
  let fd: number;
  try {
    fd = fs.openSync(file, 'r');
  } catch {
    return null;
  }
  try {
    const buffer = Buffer.alloc(Math.min(fs.fstatSync(fd).size, MAX_SIDECAR_BYTES));
    return buffer.subarray(0, fs.readSync(fd, buffer, 0, buffer.length, 0)).toString('utf8');
  } catch {
    return null;
  } finally {
    fs.closeSync(fd);
  }
}
