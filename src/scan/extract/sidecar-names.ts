/**
 * Pure name matching of sidecars to media files. Google Takeout's JSON names have quirks:
 * `NAME.ext.json`; `NAME.ext.supplemental-metadata.json` cut anywhere (`.supp.json`);
 * the name before `.json` cut to 46 characters; a duplicate counter moved behind the
 * extension (`NAME(1).ext` -> `NAME.ext(1).json`); `-edited` copies share the original's JSON.
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

/**
 * Takeout JSON names that may belong to a media file named `base`, best first. Compare
 * them case-insensitively against the folder's listing.
 */
export function takeoutJsonCandidates(base: string): string[] {
  const out: string[] = [];
  const add = (name: string): void => {
    if (!out.includes(name)) out.push(name);
  };
  const bases = [base];
  const original = editedOriginal(base);
  if (original !== null) bases.push(original);
  for (const b of bases) {
    const { core, counter } = splitCounter(b);
    // Whole names first (`.supplemental-metadata`, then none), then every cut, longest first.
    const lengths = [SUPPLEMENTAL.length, 0];
    for (let len = SUPPLEMENTAL.length - 1; len >= 2; len--) lengths.push(len); // a lone "." is no cut Takeout makes
    for (const len of lengths) {
      const full = core + SUPPLEMENTAL.slice(0, len);
      add(`${full.slice(0, TAKEOUT_NAME_LIMIT)}${counter}.json`);
      if (full.length > TAKEOUT_NAME_LIMIT) add(`${full}${counter}.json`);
    }
    if (counter !== '') add(`${b}.json`);
    const dot = core.lastIndexOf('.');
    if (dot > 0) add(`${core.slice(0, dot)}${counter}.json`);
  }
  return out;
}

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
