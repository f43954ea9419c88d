import { open, readdir } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import type { TakeoutData } from './takeout.js';
import { parseTakeout } from './takeout.js';
import type { XmpData } from './xmp.js';
import { parseXmp } from './xmp.js';
import { pickCandidate, takeoutJsonCandidates, takeoutTitle, xmpCandidates } from './sidecar-names.js';
import type { ExtractionWarning } from './warnings.js';
import { warning } from './warnings.js';

/** The sidecars of one media file, parsed; a missing or unreadable sidecar is null. */
export interface Sidecars {
  takeout: TakeoutData | null;
  xmp: XmpData | null;
  /** A sidecar found but left out (an XMP past the parser's limits, or not XML): `skipped_sidecar`. */
  warnings?: ExtractionWarning[];
}

/** Finds and reads the sidecars of media files; one per worker (it caches folder listings). */
export interface SidecarFinder {
  load(absPath: string): Promise<Sidecars>;
}

export interface SidecarFinderOptions {
  /** Lists a folder's entry names (default: fs.promises.readdir). */
  listDir?: (dir: string) => Promise<string[]>;
  /** Reads a sidecar's text (default: fs.promises.readFile as UTF-8). */
  readText?: (path: string) => Promise<string>;
  /** How many folder listings to keep (default 64). */
  maxCachedDirs?: number;
}

/** A sidecar is small: of a larger file only this much is read (in a folder or an archive alike). */
export const MAX_SIDECAR_BYTES = 4 * 1024 * 1024;

/** A sidecar file's text, at most MAX_SIDECAR_BYTES of it: a larger file is never read whole. */
export async function readSidecarText(path: string): Promise<string> {
  const handle = await open(path, 'r');
  try {
    const buffer = Buffer.alloc(Math.min((await handle.stat()).size, MAX_SIDECAR_BYTES));
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
    return buffer.subarray(0, bytesRead).toString('utf8');
  } finally {
    await handle.close();
  }
}

/** JSON files of a folder read for their titles at most: past this the folder has no title key. */
export const MAX_TITLE_JSONS = 20_000;

/**
 * A folder's Takeout JSONs by lower-case `title` (the last way to match one, sidecar-names.ts):
 * a title two JSONs share names neither (null). Built once per folder, on the first miss.
 */
export async function titleIndex(
  dir: string,
  names: ReadonlyMap<string, string>,
  readText: (path: string) => Promise<string>,
): Promise<Map<string, string | null>> {
  const titles = new Map<string, string | null>();
  const jsons = [...names.values()].filter((name) => /\.json$/i.test(name));
  if (jsons.length > MAX_TITLE_JSONS) return titles;
  for (const name of jsons) {
    const title = await readText(join(dir, name)).then(takeoutTitle, () => null);
    if (title === null) continue;
    const key = title.toLowerCase();
    titles.set(key, titles.has(key) ? null : name);
  }
  return titles;
}

/**
 * Creates a finder that lists each folder once (keeping only .json and .xmp names, keyed
 * by lower-case name) and matches sidecars by name. A folder that cannot be listed simply
 * has no sidecars: the walk reports unreadable folders, not extraction.
 */
export function createSidecarFinder(options: SidecarFinderOptions = {}): SidecarFinder {
  const listDir = options.listDir ?? ((dir: string) => readdir(dir));
  const readText = options.readText ?? readSidecarText;
  const maxDirs = options.maxCachedDirs ?? 64;
  const listings = new Map<string, Promise<Map<string, string>>>();
  const titles = new Map<string, Promise<Map<string, string | null>>>();

  function listing(dir: string): Promise<Map<string, string>> {
    let entry = listings.get(dir);
    if (entry) {
      listings.delete(dir); // re-insert: Map order doubles as least-recently-used order
    } else {
      entry = listDir(dir).then(
        (names) => new Map(names.filter((n) => /\.(json|xmp)$/i.test(n)).map((n) => [n.toLowerCase(), n])),
        () => new Map<string, string>(),
      );
      if (listings.size >= maxDirs) {
        const oldest = listings.keys().next().value!;
        listings.delete(oldest);
        titles.delete(oldest);
      }
    }
    listings.set(dir, entry);
    return entry;
  }

  async function readOptional<T>(
    path: string | null,
    parse: (text: string) => T | null,
    warnings: ExtractionWarning[],
  ): Promise<T | null> {
    if (path === null) return null;
    let text: string;
    try {
      text = await readText(path);
    } catch {
      return null; // a sidecar that vanished or cannot be read adds nothing; the media file still counts
    }
    return parseSidecar(`sidecar ${basename(path)}`, text, parse, warnings);
  }

  return {
    async load(absPath) {
      const dir = dirname(absPath);
      const base = basename(absPath);
      const names = await listing(dir);
      if (names.size === 0) return { takeout: null, xmp: null };
      let jsonName = pickCandidate(takeoutJsonCandidates(base), names);
      if (jsonName === null && [...names.keys()].some((name) => name.endsWith('.json'))) {
        let byTitle = titles.get(dir);
        if (!byTitle) titles.set(dir, (byTitle = titleIndex(dir, names, readText)));
        jsonName = (await byTitle).get(base.normalize('NFC').toLowerCase()) ?? null;
      }
      const xmpName = pickCandidate(xmpCandidates(base), names);
      const warnings: ExtractionWarning[] = [];
      const [takeout, xmp] = await Promise.all([
        readOptional(jsonName === null ? null : join(dir, jsonName), parseTakeout, warnings),
        readOptional(xmpName === null ? null : join(dir, xmpName), parseXmp, warnings),
      ]);
      return warnings.length > 0 ? { takeout, xmp, warnings } : { takeout, xmp };
    },
  };
}

/**
 * A sidecar's text parsed; one the parser refuses (an XMP packet past its limits, or not XML)
 * is left out with a `skipped_sidecar` warning naming it: the media file is read all the same.
 */
export function parseSidecar<T>(
  label: string,
  text: string,
  parse: (text: string) => T | null,
  warnings: ExtractionWarning[],
): T | null {
  try {
    return parse(text);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    warnings.push(warning('skipped_sidecar', `${label} left out: ${reason}`));
    return null;
  }
}
