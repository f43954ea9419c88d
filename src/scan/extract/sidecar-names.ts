/**
 * Pure name matching of sidecars to media files. Google Takeout's JSON names have quirks:
 * `NAME.ext.json`; `NAME.ext.supplemental-metadata.json` cut anywhere (`.supp.json`);
 * the name before `.json` cut to 46 characters; a duplicate counter moved behind the
 * extension (`NAME(1).ext` -> `NAME.ext(1).json`) or not; `-edited` copies share the original's
 * JSON, a Live Photo's video its still's.
 */

/** Takeout cuts the name before `(n).json` to this many characters. */
export const TAKEOUT_NAME_LIMIT = 46;
const SUPPLEMENTAL = '.supplemental-metadata';
// Google Photos' suffix for an edited copy, in the languages Takeout is commonly exported in.
const EDITED_SUFFIXES = ['edited', 'bearbeitet', 'modifié', 'editado', 'modificato', 'bewerkt', 'redigerad'];

function editedOriginal(base: string): string | null {
  const dot = base.lastIndexOf('.');
  const stem = dot > 0 ? base.slice(0, dot) : base;
  const ext = dot > 0 ? base.slice(dot) : '';
  for (const suffix of EDITED_SUFFIXES) {
    const tail = `-${suffix}`;
    if (stem.toLowerCase().endsWith(tail) && stem.length > tail.length) return stem.slice(0, -tail.length) + ext;
  }
  return null;
}

/** Splits `NAME(1).ext` into the name Takeout keys on (`NAME.ext`) and the counter (`(1)`). */
function splitCounter(base: string): { core: string; counter: string } {
  const m = /^(.*?)(\(\d+\))(\.[^.]*)?$/.exec(base);
  if (!m || m[1] === '') return { core: base, counter: '' };
  return { core: m[1]! + (m[3] ?? ''), counter: m[2]! };
}

/** A Live Photo's video and the still whose JSON it shares (`IMG_1.MP4` -> `IMG_1.HEIC…json`). */
const LIVE_VIDEO_EXTENSIONS = new Set(['.mp4', '.mov']);
const LIVE_STILL_EXTENSIONS = ['.heic', '.jpg', '.jpeg'];

/**
 * The JSON names of one media name `core` (its `(n)` taken out) with the counter `counter`,
 * best first. Takeout writes the counter at the end (`NAME.ext.supplemental-metadata(1).json`)
 * or where the media has it (`NAME(1).ext.supplemental-metadata.json`), cuts the suffix
 * anywhere, and before 2026 cut the name so the whole is at most 51 characters (46 before
 * `.json`, the counter counted in or not): every cut is tried, and the uncut name.
 */
function namesOf(core: string, counter: string, add: (name: string) => void): void {
  const dot = core.lastIndexOf('.');
  const inPlace = counter === '' || dot <= 0 ? core : `${core.slice(0, dot)}${counter}${core.slice(dot)}`;
  // Whole names first (`.supplemental-metadata`, then none), then every cut, longest first.
  const lengths = [SUPPLEMENTAL.length, 0];
  for (let len = SUPPLEMENTAL.length - 1; len >= 2; len--) lengths.push(len); // a lone "." is no cut Takeout makes
  const limits = counter === '' ? [TAKEOUT_NAME_LIMIT] : [TAKEOUT_NAME_LIMIT, TAKEOUT_NAME_LIMIT - counter.length];
  for (const len of lengths) {
    const suffix = SUPPLEMENTAL.slice(0, len);
    for (const [name, tail] of [
      [core + suffix, counter],
      [inPlace + suffix, ''],
    ] as const) {
      for (const limit of limits) add(`${name.slice(0, limit)}${tail}.json`);
      add(`${name}${tail}.json`); // 2026 exports no longer cut
    }
  }
}

/**
 * Takeout JSON names that may belong to a media file named `base`, best first. Compare
 * them case-insensitively against the folder's listing.
 */
export function takeoutJsonCandidates(base: string): string[] {
  const out: string[] = [];
  const seen = new Set<string>();
  const add = (name: string): void => {
    const lower = name.toLowerCase();
    if (seen.has(lower)) return;
    seen.add(lower);
    out.push(name);
  };
  const bases = [base];
  const original = editedOriginal(base);
  if (original !== null) bases.push(original);
  for (const b of bases) {
    const { core, counter } = splitCounter(b);
    namesOf(core, counter, add);
    if (counter !== '') add(`${b}.json`);
    const dot = core.lastIndexOf('.');
    if (dot > 0) add(`${core.slice(0, dot)}${counter}.json`);
  }
  // A Live Photo's video has no JSON of its own: it shares its still's, last of all.
  const { core, counter } = splitCounter(base);
  const dot = core.lastIndexOf('.');
  if (dot > 0 && LIVE_VIDEO_EXTENSIONS.has(core.slice(dot).toLowerCase()))
    for (const still of LIVE_STILL_EXTENSIONS) namesOf(core.slice(0, dot) + still, counter, add);
  return out;
}

/**
 * The `title` of a Takeout JSON (the media's name as uploaded), or null: the last way to
 * find a JSON whose name no rule above gives, compared case-insensitively within its folder.
 */
export function takeoutTitle(text: string): string | null {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return null;
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return null;
  const title = (raw as { title?: unknown }).title;
  return typeof title === 'string' && title !== '' && title.length <= 1024 ? title.normalize('NFC') : null;
}

/**
 * Takeout's year folders (`Photos from 2023`) in the languages it is exported in, with any
 * kind of space (a non-breaking one in French exports); the year, or null for any other
 * folder (an album).
 */
export function takeoutYearFolder(name: string): number | null {
  const m = YEAR_FOLDER.exec(
    name
      .normalize('NFC')
      .replace(/[\u00a0\u202f\s]+/g, ' ')
      .trim(),
  );
  return m ? Number(m[1]) : null;
}

const YEAR_FOLDER =
  /^(?:photos from|fotos von|photos de|fotos de|foto del|foto's uit|foto\u2019s uit|bilder från|billeder fra|bilder fra|kuvat vuodelta|zdjęcia z|fotky z roku|fotos do|фото за) ((?:19|20)\d{2})$/i;

/** XMP sidecar names for `base`: `NAME.ext.xmp` first, then `NAME.xmp`. */
export function xmpCandidates(base: string): string[] {
  const dot = base.lastIndexOf('.');
  return dot > 0 ? [`${base}.xmp`, `${base.slice(0, dot)}.xmp`] : [`${base}.xmp`];
}

/** The first candidate present in a listing keyed by lower-case name; returns the real name. */
export function pickCandidate(candidates: string[], listing: ReadonlyMap<string, string>): string | null {
  for (const candidate of candidates) {
    const real = listing.get(candidate.toLowerCase());
    if (real !== undefined) return real;
  }
  return null;
}
