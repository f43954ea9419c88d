import { createHash } from 'node:crypto';
import { pickCandidate, takeoutJsonCandidates, xmpCandidates } from '../extract/sidecar-names.js';

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
 * Only sidecar texts are held (a Takeout JSON is about 1 KB).
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
  readonly size: number;
}

interface Held {
  name: string;
  text: string;
  digest: string;
}

/** One name's sidecars: a folder's copy shadows an archive's. */
interface Slot {
  folder?: Held & { from: string };
  archive?: Held;
}

/** A member's folder inside its archive, as the sidecar tree keys it (`./` and leading `/` dropped). */
export function folderKey(member: string): { dir: string; base: string } {
  const clean = member.replace(/^(\.\/|\/)+/, '');
  const slash = clean.lastIndexOf('/');
  return slash < 0 ? { dir: '', base: clean } : { dir: clean.slice(0, slash), base: clean.slice(slash + 1) };
}

/** Creates an empty index. */
export function createSidecarIndex(): SidecarIndex {
  const folders = new Map<string, Map<string, Slot>>();
  // Lower-case name -> name per folder: the listing sidecar-names.ts matches against.
  const listings = new Map<string, Map<string, string>>();
  // The same, per folder on disk a folder's sidecars were read from: a file's own folder first.
  const ownListings = new Map<string, Map<string, Map<string, string>>>();
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
        listings.set(dir, new Map());
      }
      const lower = base.toLowerCase();
      let slot = held.get(lower);
      if (!slot) {
        held.set(lower, (slot = {}));
        size += 1;
      }
      const entry = { name: base, text, digest: createHash('sha1').update(text).digest('base64url').slice(0, 12) };
      if (folder !== undefined) {
        if (slot.folder && slot.folder.from !== folder) ownListings.get(dir)?.get(slot.folder.from)?.delete(lower);
        slot.folder = { ...entry, from: folder };
        let own = ownListings.get(dir);
        if (!own) ownListings.set(dir, (own = new Map()));
        let names = own.get(folder);
        if (!names) own.set(folder, (names = new Map()));
        names.set(lower, base);
      } else slot.archive = entry;
      listings.get(dir)!.set(lower, (slot.folder ?? entry).name);
    },
    forget(dir, folder, present) {
      const names = ownListings.get(dir)?.get(folder);
      if (!names) return;
      const held = folders.get(dir)!;
      const listing = listings.get(dir)!;
      for (const lower of [...names.keys()]) {
        if (present.has(lower)) continue;
        names.delete(lower);
        const slot = held.get(lower)!;
        slot.folder = undefined;
        if (slot.archive) listing.set(lower, slot.archive.name);
        else {
          held.delete(lower);
          listing.delete(lower);
          size -= 1;
        }
      }
    },
    find(member, ownFolder) {
      const { dir, base } = folderKey(member);
      const held = folders.get(dir);
      if (!held) return { takeout: null, xmp: null, print: '' };
      const names = listings.get(dir)!;
      const own = ownFolder === undefined ? undefined : ownListings.get(dir)?.get(ownFolder);
      const pick = (candidates: string[]): Held | null => {
        const mine = own && own.size > 0 ? pickCandidate(candidates, own) : null;
        if (mine !== null) return held.get(mine.toLowerCase())!.folder!;
        const name = pickCandidate(candidates, names);
        const slot = name === null ? undefined : held.get(name.toLowerCase());
        return slot?.folder ?? slot?.archive ?? null;
      };
      const json = pick(takeoutJsonCandidates(base));
      const xmp = pick(xmpCandidates(base));
      const print = [json, xmp]
        .filter((entry): entry is Held => entry !== null)
        .map((entry) => `${entry.name}:${entry.digest}`)
        .join('|');
      return { takeout: json?.text ?? null, xmp: xmp?.text ?? null, print };
    },
  };
}
